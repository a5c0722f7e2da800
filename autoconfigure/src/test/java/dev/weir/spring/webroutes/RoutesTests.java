package dev.weir.spring.webroutes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.test.LocalHttp;
import dev.weir.spring.test.ManualTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Routes of {@code weir.web.routes} over real HTTP: per-key limits keyed by a key expression over
 * the request, the RateLimit headers checked against the rule across a window, method and header
 * conditions, permits, composition with an annotated method's own key, and paths no route matches.
 */
@SpringBootTest(classes = RoutesApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=routes-test")
@DirtiesContext
class RoutesTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  ManualTicker ticker;

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    return LocalHttp.get(port, path, headers);
  }

  HttpResponse<String> post(String path, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .POST(HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      request.headers(headers);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String header(HttpResponse<?> response, String name) {
    return response.headers().firstValue(name).orElse(null);
  }

  @Test
  void eachApiKeyHasItsOwnCountAndAnOverflowIsRefusedWithItsHeaders() throws Exception {
    for (String key : new String[] {"key-a", "key-b"}) {
      for (int i = 1; i <= 3; i++) {
        HttpResponse<String> ok = get("/api/ping", "X-Api-Key", key);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(header(ok, "RateLimit-Policy")).isEqualTo("\"param-flow-0\";q=3;w=10");
        // a token bucket of 3 per 10 s: each request takes one token, and the next is 3.33 s away
        assertThat(header(ok, "RateLimit")).isEqualTo("\"param-flow-0\";r=" + (3 - i) + ";t=4");
      }
    }
    for (int i = 0; i < 3; i++) {
      assertThat(get("/api/ping", "X-Api-Key", "key-c").statusCode()).isEqualTo(200);
    }
    HttpResponse<String> refused = get("/api/ping", "X-Api-Key", "key-c");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("\"resource\":\"api\"").contains("param-flow");
    assertThat(header(refused, "Retry-After")).isEqualTo("4"); // 3.33 s to the next token, rounded up
    assertThat(header(refused, "RateLimit-Policy")).isEqualTo("\"param-flow-0\";q=3;w=10");
    assertThat(header(refused, "RateLimit")).as("t is the Retry-After").isEqualTo("\"param-flow-0\";r=0;t=4");
    assertThat(get("/api/ping", "X-Api-Key", "key-a").statusCode()).as("key-a used its 3 too").isEqualTo(429);

    // the window rolls: one token back every 3.33 s
    ticker.advance(Duration.ofMillis(3400));
    HttpResponse<String> afterRefill = get("/api/ping", "X-Api-Key", "key-c");
    assertThat(afterRefill.statusCode()).isEqualTo(200);
    assertThat(header(afterRefill, "RateLimit")).isEqualTo("\"param-flow-0\";r=0;t=4");
    ticker.advance(Duration.ofSeconds(10));
    HttpResponse<String> rested = get("/api/ping", "X-Api-Key", "key-c");
    assertThat(header(rested, "RateLimit")).isEqualTo("\"param-flow-0\";r=2;t=4");
    ticker.advance(Duration.ofSeconds(20));
  }

  @Test
  void requestsWithoutAKeyShareOneBucket() throws Exception {
    ticker.advance(Duration.ofSeconds(30));
    int admitted = 0;
    for (int i = 0; i < 5; i++) {
      admitted += get("/api/ping").statusCode() == 200 ? 1 : 0;
    }
    assertThat(admitted).as("null-key shared: all key-less requests count as one key").isEqualTo(3);
    ticker.advance(Duration.ofSeconds(30));
  }

  @Test
  void aRouteAndAnAnnotatedMethodComposeEachWithItsOwnKey() throws Exception {
    ticker.advance(Duration.ofSeconds(30));
    HttpResponse<String> first = get("/api/orders/ann", "X-Api-Key", "k1");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("orders of ann");
    HttpResponse<String> second = get("/api/orders/ann", "X-Api-Key", "k2");
    assertThat(second.statusCode()).as("the route passed (k2 is fresh); the method's key #customer refused")
        .isEqualTo(429);
    assertThat(second.body()).contains("\"resource\":\"orders.lookup\"");
    assertThat(header(second, "RateLimit-Policy")).as("the headers of the refusing rule, by its name")
        .isEqualTo("\"orders-by-customer\";q=1;w=10");
    assertThat(header(second, "RateLimit")).isEqualTo("\"orders-by-customer\";r=0;t=10");
    assertThat(get("/api/orders/bob", "X-Api-Key", "k2").statusCode()).isEqualTo(200);
    ticker.advance(Duration.ofSeconds(30));
  }

  @Test
  void methodHeaderConditionsAndPermitsSelectAndWeighRequests() throws Exception {
    ticker.advance(Duration.ofSeconds(30));
    HttpResponse<String> first = post("/reports/daily", "X-Tenant", "gold");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"flow-0\";q=4;w=10");
    assertThat(header(first, "RateLimit")).as("2 permits of 4 taken").startsWith("\"flow-0\";r=2;");
    assertThat(post("/reports/daily", "X-Tenant", "gold").statusCode()).isEqualTo(200);
    HttpResponse<String> third = post("/reports/daily", "X-Tenant", "gold");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(header(third, "RateLimit")).startsWith("\"flow-0\";r=0;");
    assertThat(post("/reports/daily", "X-Tenant", "silver").statusCode()).as("header differs: no route")
        .isEqualTo(200);
    assertThat(post("/reports/daily").statusCode()).isEqualTo(200);
    HttpResponse<String> read = get("/reports/daily", "X-Tenant", "gold");
    assertThat(read.statusCode()).as("GET is not a method of the route").isEqualTo(200);
    assertThat(header(read, "RateLimit")).isNull();
    ticker.advance(Duration.ofSeconds(30));
  }

  /**
   * 3 per 30 s on a sliding window, named: requests at 0, 10 and 20 s. t is when the oldest
   * request leaves the window (30, 20, 10 s), not when the window is empty; the refusal's t is its
   * Retry-After. A HEAD runs the GET handler, so a route listing GET takes it too: refused, the
   * handler not run.
   */
  @Test
  void aGetRouteCountsHeadAndTellsWhenMoreIsAvailableUnderItsName() throws Exception {
    ticker.advance(Duration.ofSeconds(60));
    long bucket = Duration.ofSeconds(3).toNanos(); // the window's buckets: a tenth of 30 s
    ticker.advance(Duration.ofNanos(bucket - Math.floorMod(ticker.read(), bucket))); // at a bucket's start
    int handled = RoutesApplication.Endpoints.reads.get();
    int[] untilMore = {30, 20, 10};
    for (int i = 0; i < 3; i++) {
      ticker.advance(Duration.ofSeconds(i == 0 ? 0 : 10));
      HttpResponse<String> ok = get("/reads/item");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(header(ok, "RateLimit-Policy")).isEqualTo("\"reads:window\";q=3;w=30");
      assertThat(header(ok, "RateLimit")).isEqualTo("\"reads:window\";r=" + (2 - i) + ";t=" + untilMore[i]);
    }
    HttpResponse<String> refused = get("/reads/item");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(header(refused, "Retry-After")).isEqualTo("10");
    assertThat(header(refused, "RateLimit")).isEqualTo("\"reads:window\";r=0;t=10");
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> head = LocalHttp.send(port, "HEAD", "/reads/item");
      assertThat(head.statusCode()).as("HEAD is GET to the handler, so to the route").isEqualTo(429);
      assertThat(header(head, "RateLimit")).isEqualTo("\"reads:window\";r=0;t=10");
    }
    assertThat(RoutesApplication.Endpoints.reads.get()).as("the handler ran for the three GETs only")
        .isEqualTo(handled + 3);
    ticker.advance(Duration.ofSeconds(10));                       // the request at 0 s has left
    HttpResponse<String> head = LocalHttp.send(port, "HEAD", "/reads/item");
    assertThat(head.statusCode()).isEqualTo(200);
    // the HEAD took the permit; the request at 10 s is in the bucket of 9-12 s, which leaves at 39 s
    assertThat(header(head, "RateLimit")).isEqualTo("\"reads:window\";r=0;t=9");
    assertThat(get("/reads/item").statusCode()).isEqualTo(429);
    ticker.advance(Duration.ofSeconds(60));
  }

  @Test
  void aHeadRouteDoesNotMatchGetAndARouteWithoutMethodsMatchesEveryMethod() throws Exception {
    ticker.advance(Duration.ofSeconds(60));
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> read = get("/heads/item");
      assertThat(read.statusCode()).as("GET is not HEAD").isEqualTo(200);
      assertThat(header(read, "RateLimit")).isNull();
    }
    assertThat(LocalHttp.send(port, "HEAD", "/heads/item").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.send(port, "HEAD", "/heads/item").statusCode()).as("1 per 30 s").isEqualTo(429);

    // /api/** lists no methods: GET, HEAD and POST (405: the path has no POST handler) count alike
    assertThat(get("/api/ping", "X-Api-Key", "mixed").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.send(port, "HEAD", "/api/ping", "X-Api-Key", "mixed").statusCode()).isEqualTo(200);
    assertThat(post("/api/ping", "X-Api-Key", "mixed").statusCode()).isEqualTo(405);
    assertThat(LocalHttp.send(port, "DELETE", "/api/ping", "X-Api-Key", "mixed").statusCode()).isEqualTo(429);
    ticker.advance(Duration.ofSeconds(60));
  }

  /**
   * The draft's example on a token bucket, 3 per 30 s, named: three requests at once each leave
   * the next permit 10 s away (the old reading said 10, 20, 30 s, until full), and the refusal's
   * t is its Retry-After.
   */
  @Test
  void aTokenBucketTellsTheTimeToItsNextPermitUnderItsName() throws Exception {
    ticker.advance(Duration.ofSeconds(60));
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> ok = get("/keyed/item", "X-Api-Key", "k30");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(header(ok, "RateLimit-Policy")).isEqualTo("\"per-key\";q=3;w=30");
      assertThat(header(ok, "RateLimit")).isEqualTo("\"per-key\";r=" + (2 - i) + ";t=10");
    }
    HttpResponse<String> refused = get("/keyed/item", "X-Api-Key", "k30");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(header(refused, "Retry-After")).isEqualTo("10");
    assertThat(header(refused, "RateLimit")).isEqualTo("\"per-key\";r=0;t=10");
    ticker.advance(Duration.ofSeconds(10));
    assertThat(header(get("/keyed/item", "X-Api-Key", "k30"), "RateLimit")).isEqualTo("\"per-key\";r=0;t=10");
    ticker.advance(Duration.ofSeconds(60));
  }

  @Test
  void aRouteWithoutRulesAndUnmatchedPathsAreUntouched() throws Exception {
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> open = get("/open/door");
      assertThat(open.statusCode()).isEqualTo(200);
      assertThat(header(open, "RateLimit")).isNull();
      assertThat(header(open, "RateLimit-Policy")).isNull();
    }
    assertThat(weir.statistics("untouched").totalPassed()).as("still counted as its resource").isGreaterThan(0);
    assertThat(get("/nowhere/" + System.nanoTime()).statusCode()).isEqualTo(404);
    assertThat(weir.resources()).as("no resource named after a path").allSatisfy(name -> assertThat(name)
        .doesNotStartWith("/"));
  }

  @Test
  void aFailedRequestIsAFailedCallOfItsRoute() throws Exception {
    ticker.advance(Duration.ofSeconds(30));
    long before = weir.statistics("api").totalFailed();
    assertThat(get("/api/fail", "X-Api-Key", "failing").statusCode()).isEqualTo(500);
    assertThat(weir.statistics("api").totalFailed()).isEqualTo(before + 1);
    ticker.advance(Duration.ofSeconds(30));
  }
}
