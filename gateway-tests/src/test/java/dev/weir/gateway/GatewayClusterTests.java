package dev.weir.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import dev.weir.Weir;
import dev.weir.spring.gateway.WeirFilterFunctions;
import dev.weir.spring.test.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * Cluster mode through both gateways: two gateway instances (each a real server on its own port)
 * share one cluster-mode rule of {@code gateway:shared} in a real {@code redis-server} that the test
 * owns, with and without leases. Requests alternate between the instances.
 */
class GatewayClusterTests {

  private static final int COUNT = 4;

  private RedisServer redis;
  private Backend backend;
  private final List<ConfigurableApplicationContext> gateways = new ArrayList<>();

  @BeforeEach
  void start() {
    redis = RedisServer.start();
    backend = Backend.start();
  }

  @AfterEach
  void stop() {
    gateways.forEach(ConfigurableApplicationContext::close);
    if (backend != null) {
      backend.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @ParameterizedTest(name = "{0}, leases {1}")
  @CsvSource({"webflux, false", "webflux, true", "mvc, false", "mvc, true"})
  void twoInstancesShareOneCountInRedis(String flavour, boolean lease) {
    int[] ports = {startGateway(flavour, lease), startGateway(flavour, lease)};
    int admitted = 0;
    int refused = 0;
    for (int i = 0; i < 3 * COUNT; i++) {
      int status = Http.get(ports[i % 2], "/shared/x").statusCode();
      assertThat(status).isIn(200, 429);
      if (status == 200) {
        admitted++;
      } else {
        refused++;
      }
    }
    assertThat(backend.received("/shared/x")).as("only admitted requests reached the backend").isEqualTo(admitted);
    if (lease) {
      // A block of permits may stay unspent in one instance: never more than COUNT, all told.
      assertThat(admitted).isBetween(1, COUNT);
    } else {
      assertThat(admitted).as("exactly the shared count, alternating between the instances").isEqualTo(COUNT);
    }
    assertThat(refused).isEqualTo(3 * COUNT - admitted);
    assertThat(redis.command("KEYS", "*")).as("counted in Redis").contains("gateway:shared");
    for (ConfigurableApplicationContext gateway : gateways) {
      assertThat(gateway.getBean(Weir.class).cluster()).isNotNull();
    }
  }

  private int startGateway(String flavour, boolean lease) {
    List<String> properties = new ArrayList<>(List.of(
        "server.port=0",
        "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
        "weir.cluster.enabled=true", "weir.cluster.lease=" + lease,
        "weir.flow[0].resource=gateway:shared", "weir.flow[0].count=" + COUNT, "weir.flow[0].interval=1m",
        "weir.flow[0].cluster-mode=true",
        "backend.url=" + backend.url()));
    SpringApplicationBuilder builder;
    if (flavour.equals("webflux")) {
      properties.addAll(List.of("spring.main.web-application-type=reactive",
          "spring.cloud.gateway.server.webflux.routes[0].id=shared",
          "spring.cloud.gateway.server.webflux.routes[0].uri=" + backend.url(),
          "spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/shared/**",
          "spring.cloud.gateway.server.webflux.routes[0].filters[0]=RequestRateLimiter"));
      builder = new SpringApplicationBuilder(WebFluxGateway.class);
    } else {
      properties.addAll(List.of("spring.main.web-application-type=servlet",
          "spring.cloud.gateway.server.webflux.enabled=false",
          "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration"));
      builder = new SpringApplicationBuilder(MvcGateway.class);
    }
    ConfigurableApplicationContext context = builder.properties(properties.toArray(String[]::new)).run();
    gateways.add(context);
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class WebFluxGateway {

    @Bean
    KeyResolver everyone() {
      return exchange -> Mono.just("everyone");
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class MvcGateway {

    @Bean
    RouterFunction<ServerResponse> shared(@Value("${backend.url}") String backendUrl) {
      return route("shared").GET("/shared/**", http()).before(uri(backendUrl))
          .filter(WeirFilterFunctions.rateLimit("shared")).build();
    }
  }
}
