package dev.weir.spring.webroutes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.RuleSet;
import dev.weir.spring.test.LocalHttp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * Route keys on WebFlux over real HTTP (Reactor Netty on a random port): the contract's
 * {@code #request.getHeader('X-Api-Key')} counts per key (SpEL on the live
 * {@code ServerHttpRequest} had no such method: every key was null and all clients shared one
 * bucket), {@code #principal} is the name from the exchange's principal; and keys posted through
 * the {@code weir} endpoint that reached Netty through the live request (one closed the server's
 * listening socket), or used the request's own API, are answered {@code 400} naming
 * {@code param-flow[0].key}, change nothing, and the server still accepts connections.
 */
@SpringBootTest(classes = ReactiveKeyAttackApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=key-attack-webflux-test")
@DirtiesContext
class ReactiveKeyAttackTests {

  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  /** Posts one param-flow rule with {@code key}, in the form the dashboard page posts (a JSON text in "rules"). */
  private HttpResponse<String> postKey(String resource, String key) throws Exception {
    String rules = JSON.writeValueAsString(Map.of("paramFlow", List.of(Map.of("key", key, "count", 5))));
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("rules", rules)))).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private void refusedAndNothingChanged(String key, String... reason) throws Exception {
    RuleSet before = weir.rules().rules("rx.target");
    HttpResponse<String> answer = postKey("rx.target", key);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    assertThat(answer.body()).contains("param-flow[0].key").contains(reason);
    assertThat(weir.rules().rules("rx.target")).as("nothing changed").isEqualTo(before);
    HttpResponse<String> after = LocalHttp.get(port, "/rx/target/x", "X-Api-Key", "k");
    assertThat(after.statusCode()).as("the server still accepts connections").isEqualTo(200);
  }

  static Stream<Arguments> keysThatReachedNettyOrUsedTheRequestsOwnApi() {
    return Stream.of(
        Arguments.of("#request.nativeRequest.channel().parent().close()",
            "#request.nativeRequest (at position 9): #request is a read-only view of the request"),
        Arguments.of("#request.getNativeRequest().channel().parent().close()",
            "#request.getNativeRequest() (at position 9)"),
        Arguments.of("#request.headers.getFirst('X-Api-Key')",
            "#request.headers (at position 9): #request is a read-only view of the request with getHeader(name),"
                + " getParameter(name), getMethod(), getRequestURI() and getRemoteAddr()"
                + " (or .method, .requestURI, .remoteAddr) only, never the request itself;"
                + " for a header write #request.getHeader('X-Api-Key')"),
        Arguments.of("#request.getHeaders().getFirst('X-Api-Key')",
            "for a header write #request.getHeader('X-Api-Key')"),
        Arguments.of("#request.getHeader('X-Api-Key').matches('(.*a){12}b')", "is a String, whose methods here are"));
  }

  @ParameterizedTest
  @MethodSource
  void keysThatReachedNettyOrUsedTheRequestsOwnApi(String key, String reason) throws Exception {
    refusedAndNothingChanged(key, reason);
  }

  @Test
  void theContractsHeaderKeyCountsPerKey() throws Exception {
    for (String key : new String[] {"a", "b"}) {
      assertThat(LocalHttp.get(port, "/rx/keyed/x", "X-Api-Key", key).statusCode()).isEqualTo(200);
      assertThat(LocalHttp.get(port, "/rx/keyed/x", "X-Api-Key", key).statusCode()).isEqualTo(200);
    }
    assertThat(LocalHttp.get(port, "/rx/keyed/x", "X-Api-Key", "a").statusCode()).as("a's third").isEqualTo(429);
    assertThat(LocalHttp.get(port, "/rx/keyed/x", "X-Api-Key", "c").statusCode()).as("a fresh key").isEqualTo(200);
  }

  @Test
  void thePrincipalIsTheExchangesPrincipalsName() throws Exception {
    assertThat(LocalHttp.get(port, "/rx/user/x", "X-User", "alice").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/rx/user/x", "X-User", "bob").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/rx/user/x", "X-User", "alice").statusCode()).isEqualTo(429);
    assertThat(LocalHttp.get(port, "/rx/user/x").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/rx/user/x").statusCode()).as("anonymous's second").isEqualTo(429);
  }

  /** A call without a key under null-key: deny is the client's error: 400, nothing to wait for. */
  @Test
  void aMissingKeyUnderNullKeyDenyIsA400WithoutRetryAfter() throws Exception {
    assertThat(LocalHttp.get(port, "/rx/tenant/x", "X-Tenant", "t1").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/rx/tenant/x", "X-Tenant", "t1").statusCode()).as("t1's second").isEqualTo(429);
    HttpResponse<String> noTenant = LocalHttp.get(port, "/rx/tenant/x");
    assertThat(noTenant.statusCode()).as(noTenant.body()).isEqualTo(400);
    assertThat(noTenant.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(noTenant.body()).contains("\"type\":\"urn:weir:block:param-flow\"").contains("\"status\":400")
        .contains("has no key: #request.getHeader('X-Tenant') is missing.").doesNotContain("Retry after");
    assertThat(noTenant.headers().map().keySet()).as("nothing to wait for")
        .noneMatch(name -> name.equalsIgnoreCase("Retry-After") || name.toLowerCase(java.util.Locale.ROOT)
            .startsWith("ratelimit"));
  }
}
