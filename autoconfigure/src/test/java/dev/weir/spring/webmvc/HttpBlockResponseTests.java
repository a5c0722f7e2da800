package dev.weir.spring.webmvc;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.rule.RuleKind;
import dev.weir.spring.test.LocalHttp;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

/** The HTTP answers to refusals, over real HTTP on a random port. */
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=http-test")
class HttpBlockResponseTests {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  HttpTestApplication.Guarded guarded;

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    return LocalHttp.get(port, path, headers);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> json(HttpResponse<String> response) {
    return JSON.readValue(response.body(), Map.class);
  }

  @Test
  void flowRefusalIsA429ProblemWithRetryAfter() throws Exception {
    HttpResponse<String> response = get("/limited");
    assertThat(response.statusCode()).isEqualTo(429);
    assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(json(response)).containsEntry("type", "urn:weir:block:flow")
        .containsEntry("title", "Too Many Requests").containsEntry("status", 429)
        .containsEntry("resource", "http.limited").containsEntry("instance", "/limited")
        .hasEntrySatisfying("detail", detail -> assertThat((String) detail).contains("http.limited"));
  }

  @Test
  void retryAfterIsTheEnginesWaitInWholeSecondsRoundedUp() throws Exception {
    assertThat(get("/retry").statusCode()).isEqualTo(200);
    HttpResponse<String> response = get("/retry");
    assertThat(response.statusCode()).isEqualTo(429);
    // the same refusal, asked of the engine directly at the same (test-driven) time
    long nanos = refusalWait("http.retry");
    assertThat(nanos).isGreaterThan(1_000_000_000L);
    long expected = (nanos + 999_999_999L) / 1_000_000_000L;
    assertThat(response.headers().firstValue("Retry-After")).hasValue(Long.toString(expected));
  }

  private long refusalWait(String resource) {
    try (Entry entry = weir.entry(resource)) {
      throw new AssertionError("expected a refusal of " + resource);
    } catch (BlockException e) {
      return e.retryAfterNanos();
    }
  }

  @Test
  void degradeRefusalIsA503WithRetryAfter() throws Exception {
    HttpResponse<String> response = get("/degrade");
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("Retry-After")).hasValue("3");
    assertThat(json(response)).containsEntry("type", "urn:weir:block:degrade").containsEntry("status", 503)
        .containsEntry("title", "Service Unavailable").containsEntry("resource", "http.degrade");
  }

  @Test
  void authorityRefusalIsA403WithoutRetryAfter() throws Exception {
    HttpResponse<String> response = get("/authority");
    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(response.headers().firstValue("Retry-After")).isEmpty();
    assertThat(json(response)).containsEntry("type", "urn:weir:block:authority").containsEntry("status", 403)
        .containsEntry("resource", "http.authority");
  }

  @Test
  void paramFlowAndSystemRefusalsAre429() throws Exception {
    HttpResponse<String> paramFlow = get("/param-flow");
    assertThat(paramFlow.statusCode()).isEqualTo(429);
    assertThat(paramFlow.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(json(paramFlow)).containsEntry("type", "urn:weir:block:param-flow");
    HttpResponse<String> system = get("/system");
    assertThat(system.statusCode()).isEqualTo(429);
    assertThat(system.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(json(system)).containsEntry("type", "urn:weir:block:system");
  }

  @Test
  void theApplicationsOwnHandlersWin() throws Exception {
    HttpResponse<String> advised = get("/own-advice");
    assertThat(advised.statusCode()).isEqualTo(418);
    assertThat(advised.body()).isEqualTo("handled by the application: http.own");
    HttpResponse<String> local = get("/local-handler");
    assertThat(local.statusCode()).isEqualTo(200);
    assertThat(local.body()).isEqualTo("handled locally: FlowException");
  }

  @Test
  void originHeaderGivesTheRequestItsOrigin() throws Exception {
    assertRefusedBy(RuleKind.FLOW, get("/partner", "X-Caller", "partner"));
    assertThat(get("/partner", "X-Caller", "someone-else").statusCode()).isEqualTo(200);
    assertThat(get("/partner").statusCode()).isEqualTo(200);
  }

  @Test
  void requestsRunInTheWebContext() throws Exception {
    assertRefusedBy(RuleKind.FLOW, get("/chain"));
    assertThat(guarded.chain()).as("outside a web request the chain rule does not apply").isEqualTo("chain");
    assertRefusedBy(RuleKind.FLOW, () -> weir.callInContext(WeirContextFilter.CONTEXT_NAME, null, guarded::chain));
  }
}
