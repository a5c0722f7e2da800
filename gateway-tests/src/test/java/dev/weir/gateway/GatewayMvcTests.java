package dev.weir.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.spring.gateway.WeirFilterFunctions;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Spring Cloud Gateway Server MVC with Weir's filter functions: a real gateway (Tomcat) on a random
 * port routing to a real {@link Backend} on another, routes from the Java DSL
 * ({@link WeirFilterFunctions#rateLimit}) and from properties (the YAML filter {@code Weir}), Weir's
 * rules on {@code gateway:<routeId>}, and a driven ticker.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = GatewayMvcTests.App.class,
    properties = {
        "spring.main.web-application-type=servlet",
        // the WebFlux server is on this module's class path too, and refuses a servlet application
        "spring.cloud.gateway.server.webflux.enabled=false",
        // whose Redis limiter does not follow that switch (and needs the WebFlux server's beans)
        "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration",
        "weir.flow[0].resource=gateway:mvc-route", "weir.flow[0].name=per-minute", "weir.flow[0].count=3",
        "weir.flow[0].interval=1m", "weir.flow[0].exact=true",
        "weir.param-flow[0].resource=gateway:mvc-key", "weir.param-flow[0].name=per-key",
        "weir.param-flow[0].param-index=0", "weir.param-flow[0].count=2", "weir.param-flow[0].duration=1m",
        "weir.param-flow[1].resource=gateway:mvc-yaml", "weir.param-flow[1].name=per-key",
        "weir.param-flow[1].param-index=0", "weir.param-flow[1].count=1", "weir.param-flow[1].duration=1m",
        "weir.flow[1].resource=gateway:mvc-daily", "weir.flow[1].name=per-day", "weir.flow[1].count=100000",
        "weir.flow[1].interval=1d", "weir.flow[1].exact=true",
    })
@AutoConfigureWeirTest
class GatewayMvcTests {

  static final Backend backend = Backend.start();

  @LocalServerPort
  int port;

  @Autowired
  DrivenTicker ticker;

  @Autowired
  Weir weir;

  @DynamicPropertySource
  static void yamlRoute(DynamicPropertyRegistry registry) {
    String route = "spring.cloud.gateway.server.webmvc.routes[0].";
    registry.add(route + "id", () -> "mvc-yaml");
    registry.add(route + "uri", backend::url);
    registry.add(route + "predicates[0]", () -> "Path=/mvc-yaml/**");
    registry.add(route + "filters[0]", () -> "Weir=mvc-yaml,X-Api-Key");
  }

  @AfterAll
  static void stopBackend() {
    backend.close();
  }

  @BeforeEach
  void forget() {
    backend.forget();
  }

  @Test
  void perRouteExactlyThreeAMinuteAndRefusalsNeverReachTheBackend() {
    HttpResponse<String> refused = GatewayScenarios.exactlyThreeAMinute(port, backend, ticker, "/mvc-route/a");
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
  }

  @Test
  void perKeyFromTheJavaDsl() {
    GatewayScenarios.eachKeyItsOwnQuota(port, backend, "/mvc-key/x");
  }

  @Test
  void aMissingKeyIsDeniedAndNeverCounted() {
    assertThat(Http.get(port, "/mvc-key/x").statusCode()).isEqualTo(403);
    assertThat(Http.get(port, "/mvc-yaml/x").statusCode()).isEqualTo(403);
    assertThat(backend.received("/mvc-key/x") + backend.received("/mvc-yaml/x")).isZero();
  }

  @Test
  void perKeyFromTheYamlFilter() {
    assertThat(Http.get(port, "/mvc-yaml/x", "alice").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = Http.get(port, "/mvc-yaml/x", "alice");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"per-key\";q=1;w=60");
    assertThat(Http.get(port, "/mvc-yaml/x", "bob").statusCode()).isEqualTo(200);
    assertThat(backend.received("/mvc-yaml/x")).isEqualTo(2);
  }

  /*
   * A daily quota of 100 000 (the gateway's Redis limiter cannot hold more than about 25 000 a day):
   * 99 998 taken by other callers of the same resource through the engine, then two requests
   * through the gateway, over a driven day.
   */
  @Test
  void aDailyQuotaOfOneHundredThousand() {
    weir.entry("gateway:mvc-daily", EntryType.IN, 99_998).close();
    ticker.advance(Duration.ofHours(1));
    assertThat(Http.get(port, "/mvc-daily/r").statusCode()).isEqualTo(200);
    assertThat(Http.get(port, "/mvc-daily/r").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = Http.get(port, "/mvc-daily/r");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"per-day\";q=100000;w=86400");
    assertThat(refused.headers().firstValue("Retry-After")).hasValue(Long.toString(Duration.ofHours(23).toSeconds()));
    assertThat(backend.received("/mvc-daily/r")).isEqualTo(2);

    ticker.advance(Duration.ofHours(23).minusNanos(1));
    assertThat(Http.get(port, "/mvc-daily/r").statusCode()).isEqualTo(429);
    ticker.advanceNanos(1);
    assertThat(Http.get(port, "/mvc-daily/r").statusCode()).as("a day after the 99 998").isEqualTo(200);
    assertThat(backend.received("/mvc-daily/r")).isEqualTo(3);
  }

  @SpringBootApplication
  static class App {

    @Bean
    RouterFunction<ServerResponse> weirRoutes() {
      return route("mvc-route").GET("/mvc-route/**", http()).before(uri(backend.url()))
          .filter(WeirFilterFunctions.rateLimit("mvc-route")).build()
          .and(route("mvc-key").GET("/mvc-key/**", http()).before(uri(backend.url()))
              .filter(WeirFilterFunctions.rateLimit("mvc-key", request -> request.headers().firstHeader("X-Api-Key")))
              .build())
          .and(route("mvc-daily").GET("/mvc-daily/**", http()).before(uri(backend.url()))
              .filter(WeirFilterFunctions.rateLimit("mvc-daily")).build());
    }
  }
}
