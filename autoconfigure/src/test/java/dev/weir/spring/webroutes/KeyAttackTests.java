package dev.weir.spring.webroutes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.RuleSet;
import dev.weir.spring.test.LocalHttp;
import dev.weir.spring.webroutes.KeyAttackApplication.KeySentinel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
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
 * Key expressions posted through the {@code weir} endpoint by an operator with write access, over
 * real HTTP (Tomcat on a random port): keys that reached Tomcat's instance manager or the Spring
 * application context through the live request, keys that burnt CPU or memory per call, and keys
 * the parser choked on. Each is answered {@code 400} naming {@code param-flow[0].key}, changes
 * nothing, and runs nothing (a system property and a bean method that an accepted key would have
 * set or called on the next request). And what a route's key may read: headers, query parameters,
 * the method and the principal's name.
 */
@SpringBootTest(classes = KeyAttackApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=key-attack-test")
@DirtiesContext
class KeyAttackTests {

  /** Set by the code the instance manager key ran (SpEL in a string literal, invisible to a tree check). */
  static final String SENTINEL_PROPERTY = "weir.key-attack.ran";

  /** Tomcat's instance manager builds a SpEL parser, which runs T(System).setProperty unrestricted. */
  static final String INSTANCE_MANAGER_KEY = "#request.getServletContext()"
      + ".getAttribute('org.apache.tomcat.InstanceManager')"
      + ".newInstance('org.springframework.expression.spel.standard.SpelExpressionParser')"
      + ".parseExpression('T(java.lang.System).setProperty(''" + SENTINEL_PROPERTY + "'',''yes'')').getValue()";

  /** The application context, its beans and their methods. */
  static final String APPLICATION_CONTEXT_KEY = "#request.getServletContext()"
      + ".getAttribute('org.springframework.web.context.WebApplicationContext.ROOT')"
      + ".getBean('keySentinel').fire()";

  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  KeySentinel sentinel;

  @AfterAll
  static void clearSentinel() {
    System.clearProperty(SENTINEL_PROPERTY);
  }

  private HttpResponse<String> postKey(String resource, String key) throws Exception {
    String body = JSON.writeValueAsString(Map.of("paramFlow", List.of(Map.of("key", key, "count", 5))));
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private void refusedAndNothingChanged(String key, String... reason) throws Exception {
    RuleSet before = weir.rules().rules("attack.target");
    HttpResponse<String> answer = postKey("attack.target", key);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    assertThat(answer.body()).contains("param-flow[0].key").contains(reason);
    assertThat(weir.rules().rules("attack.target")).as("nothing changed").isEqualTo(before);
  }

  static Stream<Arguments> keysThatReachedTomcatOrTheApplicationContext() {
    return Stream.of(
        Arguments.of(INSTANCE_MANAGER_KEY, "#request.getServletContext() (at position 9): #request is a read-only view"
            + " of the request"),
        Arguments.of(APPLICATION_CONTEXT_KEY, "#request.getServletContext() (at position 9)"));
  }

  @ParameterizedTest
  @MethodSource
  void keysThatReachedTomcatOrTheApplicationContext(String key, String reason) throws Exception {
    refusedAndNothingChanged(key, reason);
    // A request that an accepted key would have run on: nothing ran.
    assertThat(LocalHttp.get(port, "/attack/ping", "X-Api-Key", "k").statusCode()).isEqualTo(200);
    assertThat(System.getProperty(SENTINEL_PROPERTY)).as("the instance manager key ran nothing").isNull();
    assertThat(sentinel.fired).as("the application context key called no bean").isFalse();
  }

  static Stream<Arguments> keysThatBurntCpuOrMemoryOrChokedTheParser() {
    return Stream.of(
        Arguments.of("#request.getHeader('X-Api-Key').matches('(.*a){12}b')", "is a String, whose methods here are"
            + " toLowerCase(), toUpperCase(), trim(), length() and substring(begin[, end])"),
        Arguments.of("'x'.repeat(200000000)", "'x' is a String, whose methods here are"),
        Arguments.of("'" + "x".repeat(10_000) + "'", "is 10002 characters long; a key expression has at most 1000"),
        Arguments.of("!".repeat(9_000) + "#request", "is 9008 characters long"),
        Arguments.of("(".repeat(100) + "#request.method" + ")".repeat(100), "nests deeper than 32 levels"),
        Arguments.of("#request.getHeader('X-Api-Key') == 'a'", "unexpected '=' at position 32"));
  }

  /** Each answered 400, never 500 (SpEL: a 10,001-character key threw SpelEvaluationException, 9,000 '!' a StackOverflowError). */
  @ParameterizedTest
  @MethodSource
  void keysThatBurntCpuOrMemoryOrChokedTheParser(String key, String reason) throws Exception {
    refusedAndNothingChanged(key, reason);
    assertThat(LocalHttp.get(port, "/attack/ping", "X-Api-Key", "a".repeat(30)).statusCode()).isEqualTo(200);
  }

  @Test
  void aRouteKeyReadsHeadersQueryParametersTheMethodAndThePrincipal() throws Exception {
    for (String key : new String[] {"h1", "h2"}) {
      assertThat(LocalHttp.get(port, "/keyed/header/x", "X-Api-Key", key).statusCode()).isEqualTo(200);
      assertThat(LocalHttp.get(port, "/keyed/header/x", "X-Api-Key", key).statusCode()).isEqualTo(200);
    }
    assertThat(LocalHttp.get(port, "/keyed/header/x", "X-Api-Key", "h1").statusCode()).as("h1's third")
        .isEqualTo(429);

    // key: #request.getParameter('tenant') + ':' + #request.method, null-key: deny, 1 per tenant
    assertThat(LocalHttp.get(port, "/keyed/query/x?tenant=t%201&x=y").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/keyed/query/x?a=b&tenant=t+1").statusCode()).as("the same tenant, decoded")
        .isEqualTo(429);
    assertThat(LocalHttp.get(port, "/keyed/query/x?tenant=t2").statusCode()).isEqualTo(200);
    HttpResponse<String> noTenant = LocalHttp.get(port, "/keyed/query/x");
    assertThat(noTenant.statusCode()).as("no tenant: a null key, denied: the client's error").isEqualTo(400);
    assertThat(noTenant.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(noTenant.body()).contains("\"type\":\"urn:weir:block:param-flow\"").contains("\"status\":400")
        .contains("has no key: #request.getParameter('tenant') + ':' + #request.method is missing.")
        .doesNotContain("Retry after");
    assertThat(noTenant.headers().map().keySet()).as("nothing to wait for")
        .noneMatch(name -> name.equalsIgnoreCase("Retry-After") || name.toLowerCase(java.util.Locale.ROOT)
            .startsWith("ratelimit"));

    // key: #principal ?: 'anonymous', 1 per name
    assertThat(LocalHttp.get(port, "/keyed/user/x", "X-User", "alice").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/keyed/user/x", "X-User", "bob").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/keyed/user/x", "X-User", "alice").statusCode()).isEqualTo(429);
    assertThat(LocalHttp.get(port, "/keyed/user/x").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/keyed/user/x").statusCode()).as("anonymous's second").isEqualTo(429);
  }
}
