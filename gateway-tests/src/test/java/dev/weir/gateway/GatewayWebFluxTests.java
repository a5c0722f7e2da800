package dev.weir.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.gateway.WeirRateLimiter;
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
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;

/**
 * Spring Cloud Gateway Server WebFlux with Weir as its rate limiter: a real gateway on a random port
 * routing to a real {@link Backend} on another, its routes and filters from properties (as from
 * {@code application.yml}), the gateway's own {@code RequestRateLimiter} filter and
 * {@code KeyResolver}s, Weir's rules on {@code gateway:<routeId>}, and a driven ticker.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = GatewayWebFluxTests.App.class,
    properties = {
        "spring.main.web-application-type=reactive",
        // per route: 3 a minute, exactly (any span of 60 s)
        "weir.flow[0].resource=gateway:per-route", "weir.flow[0].name=per-minute", "weir.flow[0].count=3",
        "weir.flow[0].interval=1m", "weir.flow[0].exact=true",
        // per key: 2 a minute for each X-Api-Key
        "weir.param-flow[0].resource=gateway:per-key", "weir.param-flow[0].name=per-key",
        "weir.param-flow[0].param-index=0", "weir.param-flow[0].count=2", "weir.param-flow[0].duration=1m",
        // a daily quota of 100 000, exactly, each request taking 1 000 (the filter's weir-rate-limiter.permits)
        "weir.flow[1].resource=gateway:daily", "weir.flow[1].name=per-day", "weir.flow[1].count=100000",
        "weir.flow[1].interval=1d", "weir.flow[1].exact=true",
    })
@AutoConfigureWeirTest
class GatewayWebFluxTests {

  static final Backend backend = Backend.start();

  @LocalServerPort
  int port;

  @Autowired
  DrivenTicker ticker;

  @Autowired
  RateLimiter<?> rateLimiter;

  @DynamicPropertySource
  static void routes(DynamicPropertyRegistry registry) {
    route(registry, 0, "per-route", "#{@everyone}", null);
    route(registry, 1, "per-key", "#{@apiKey}", null);
    route(registry, 2, "daily", "#{@everyone}", "1000");
  }

  private static void route(DynamicPropertyRegistry registry, int index, String id, String keyResolver,
      String permits) {
    String route = "spring.cloud.gateway.server.webflux.routes[" + index + "].";
    registry.add(route + "id", () -> id);
    registry.add(route + "uri", backend::url);
    registry.add(route + "predicates[0]", () -> "Path=/" + id + "/**");
    registry.add(route + "filters[0].name", () -> "RequestRateLimiter");
    registry.add(route + "filters[0].args.key-resolver", () -> keyResolver);
    if (permits != null) {
      registry.add(route + "filters[0].args.weir-rate-limiter.permits", () -> permits);
    }
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
  void theGatewaysFilterUsesWeir() {
    assertThat(rateLimiter).isInstanceOf(WeirRateLimiter.class);
  }

  @Test
  void perRouteExactlyThreeAMinuteAndRefusalsNeverReachTheBackend() {
    GatewayScenarios.exactlyThreeAMinute(port, backend, ticker, "/per-route/a");
  }

  @Test
  void perKeyEachKeyItsOwnQuota() {
    GatewayScenarios.eachKeyItsOwnQuota(port, backend, "/per-key/x");
  }

  @Test
  void anEmptyKeyIsDeniedByTheGatewayAndNeverCounted() {
    HttpResponse<String> denied = Http.get(port, "/per-key/x");
    assertThat(denied.statusCode()).as("the gateway's deny-empty-key, its default status").isEqualTo(403);
    assertThat(backend.received("/per-key/x")).isZero();
    assertThat(Http.get(port, "/per-key/x", "carol").statusCode()).isEqualTo(200);
    assertThat(Http.get(port, "/per-key/x", "carol").statusCode()).as("the denial took nothing").isEqualTo(200);
  }

  /*
   * The gateway's Redis limiter cannot hold a daily quota above about 25 000 (#3594): its token
   * arithmetic (replenishRate 1 a second, requestedTokens 86 400 a request, burstCapacity 86 400 times
   * the quota) passes Integer.MAX_VALUE. Weir counts the quota itself: 100 000 a day, here in
   * requests of 1 000 permits each (100 real requests instead of 100 000), over a driven day.
   */
  @Test
  void aDailyQuotaOfOneHundredThousand() {
    for (int i = 0; i < 100; i++) {
      assertThat(Http.get(port, "/daily/r").statusCode()).as("request %d", i).isEqualTo(200);
      ticker.advance(Duration.ofMinutes(1));
    }
    HttpResponse<String> refused = Http.get(port, "/daily/r");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"per-day\";q=100000;w=86400");
    // The first 1 000 leave the window a day after they were admitted, 100 minutes ago.
    assertThat(refused.headers().firstValue("Retry-After")).hasValue(Long.toString(Duration.ofDays(1).minusMinutes(100).toSeconds()));
    assertThat(backend.received("/daily/r")).isEqualTo(100);

    ticker.advance(Duration.ofDays(1).minusMinutes(100).minusNanos(1));
    assertThat(Http.get(port, "/daily/r").statusCode()).isEqualTo(429);
    ticker.advanceNanos(1);
    assertThat(Http.get(port, "/daily/r").statusCode()).as("a day after the first").isEqualTo(200);
    assertThat(Http.get(port, "/daily/r").statusCode()).as("the second left a minute later").isEqualTo(429);
    assertThat(backend.received("/daily/r")).isEqualTo(101);
  }

  @SpringBootApplication
  static class App {

    @Bean
    KeyResolver everyone() {
      return exchange -> Mono.just("everyone");
    }

    @Bean
    @Primary
    KeyResolver apiKey() {
      return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
    }
  }
}
