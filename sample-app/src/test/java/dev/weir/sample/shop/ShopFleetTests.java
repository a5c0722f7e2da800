package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.test.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two shops with the {@code redis} and {@code fleet} profiles, as {@code sample-app/fleet.sh} runs
 * them (docs/samples.md), against a real {@code redis-server} the test owns: a rule written through
 * one shop's endpoint is a version of the fleet's rules that both apply.
 */
class ShopFleetTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private RedisServer redis;
  private final List<ConfigurableApplicationContext> shops = new ArrayList<>();

  @BeforeEach
  void startRedis() {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() {
    shops.forEach(ConfigurableApplicationContext::close);
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void aRuleWrittenThroughOneShopIsAppliedByBoth() throws Exception {
    ConfigurableApplicationContext first = startShop();
    ConfigurableApplicationContext second = startShop();
    HttpResponse<String> written = CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port(first)
        + "/actuator/weir/searchProducts")).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"flow\": [{\"count\": 5}]}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
    assertThat(written.body()).contains("\"version\":1");
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (shops.stream().anyMatch(shop -> shop.getBean(FleetSync.class).appliedVersion() != 1)
        && System.nanoTime() < deadline) {
      Thread.sleep(5); // each shop follows the store on a thread of its own
    }
    for (ConfigurableApplicationContext shop : shops) {
      assertThat(shop.getBean(FleetSync.class).appliedVersion()).isEqualTo(1);
      assertThat(shop.getBean(Weir.class).rules().rules("searchProducts").flow().get(0).count()).isEqualTo(5);
    }
    HttpResponse<String> fleet = CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port(second)
        + "/actuator/weir/fleet")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(fleet.body()).contains("\"version\":1");
  }

  private ConfigurableApplicationContext startShop() {
    ConfigurableApplicationContext shop = new SpringApplicationBuilder(ShopApplication.class)
        .profiles("redis", "fleet")
        .run("--server.port=0", "--shop.grpc.port=0", "--spring.data.redis.host=127.0.0.1",
            "--spring.data.redis.port=" + redis.port(), "--weir.cluster.timeout=2s");
    shops.add(shop);
    return shop;
  }

  private static int port(ConfigurableApplicationContext shop) {
    return ((WebServerApplicationContext) shop).getWebServer().getPort();
  }
}
