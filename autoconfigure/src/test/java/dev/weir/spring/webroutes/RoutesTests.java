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
        // a token bucket of 3 per 10 s: each request takes one token, and 3.33 s of refill
        assertThat(header(ok, "RateLimit")).isEqualTo("\"param-flow-0\";r=" + (3 - i) + ";t=" + (i == 3 ? 10
            : i == 2 ? 7 : 4));
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
    assertThat(header(refused, "RateLimit")).isEqualTo("\"param-flow-0\";r=0;t=10");
    assertThat(get("/api/ping", "X-Api-Key", "key-a").statusCode()).as("key-a used its 3 too").isEqualTo(429);

    // the window rolls: one token back every 3.33 s
    ticker.advance(Duration.ofMillis(3400));
    HttpResponse<String> afterRefill = get("/api/ping", "X-Api-Key", "key-c");
    assertThat(afterRefill.statusCode()).isEqualTo(200);
    assertThat(header(afterRefill, "RateLimit")).isEqualTo("\"param-flow-0\";r=0;t=10");
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
    assertThat(header(second, "RateLimit-Policy")).as("the headers of the refusing rule")
        .isEqualTo("\"param-flow\";q=1;w=10");
    assertThat(header(second, "RateLimit")).isEqualTo("\"param-flow\";r=0;t=10");
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
