package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ClusterStatus;
import dev.weir.Weir;
import dev.weir.spring.redis.RedisClusterClient;
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
 * Two instances of the shop with the {@code redis} profile, as docs/cluster.md runs them, against a
 * real {@code redis-server} the test owns: the search limit (2 per second) is one budget for both.
 *
 * <p>The shops run with a decision deadline of 2 s instead of the profile's 20 ms: on a machine busy
 * with other work a live Redis' answer can miss 20 ms, and each instance's local fallback would then
 * decide alone, which is the engine keeping its deadline, not the sharing this test is about. With
 * 2 s, a live Redis decides every call, so the tests can require that no call fell back.
 */
class ShopClusterTests {

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
    if (redis != null) { // null when redis-server is missing and the test was skipped
      redis.close();
    }
  }

  @Test
  void twoShopsShareTheSearchLimitThroughRedis() throws Exception {
    int first = startShop();
    int second = startShop();

    List<Integer> statuses = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < 6; i++) {
      statuses.add(get(i % 2 == 0 ? first : second, "/products/search?q=mug").statusCode());
    }
    long elapsed = System.nanoTime() - start;

    assertThat(statuses).containsOnly(200, 429);
    long admitted = statuses.stream().filter(status -> status == 200).count();
    // Redis decided all six within the elapsed span: a span of that length touches at most this
    // many of the window's 100 ms buckets, and any ten consecutive buckets hold at most 2. Under
    // 900 ms that is 2: the first bucket has not left the window yet.
    long buckets = elapsed / Duration.ofMillis(100).toNanos() + 2;
    assertThat(admitted).as("admitted in %d ms", elapsed / 1_000_000).isBetween(2L, 2 * ((buckets + 9) / 10));
    assertThat(statuses.subList(0, 2)).containsExactly(200, 200);
    for (ConfigurableApplicationContext shop : shops) {
      ClusterStatus cluster = shop.getBean(Weir.class).cluster();
      assertThat(cluster).isNotNull();
      assertThat(cluster.fallbacks()).isZero();
    }
    assertThat(redis.call("KEYS", "weir-shop:*")).isEqualTo(List.of("weir-shop:{searchProducts}:flow:all:1000ms"));
  }

  @Test
  void healthShowsTheClusterConnection() throws Exception {
    int port = startShop();
    get(port, "/products/search?q=mug");
    HttpResponse<String> health = get(port, "/actuator/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"reachable\":true").contains("\"breaker\":\"closed\"")
        .contains("\"store\":\"redis 127.0.0.1:" + redis.port() + "\"");
  }

  private int startShop() throws InterruptedException {
    ConfigurableApplicationContext shop = new SpringApplicationBuilder(ShopApplication.class)
        .profiles("redis")
        .run("--server.port=0", "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port(),
            "--weir.cluster.timeout=2s"); // see the class comment
    shops.add(shop);
    RedisClusterClient client = shop.getBean(RedisClusterClient.class);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!client.connected() && System.nanoTime() < deadline) {
      Thread.sleep(5); // the connection opens on a real socket in the background
    }
    assertThat(client.connected()).as("connected to Redis within 10 s").isTrue();
    return ((WebServerApplicationContext) shop).getWebServer().getPort();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
