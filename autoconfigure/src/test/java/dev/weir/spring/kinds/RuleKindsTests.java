package dev.weir.spring.kinds;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.Weir;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleKind;
import dev.weir.rule.SystemRule;
import dev.weir.spring.test.LocalHttp;
import dev.weir.spring.test.ManualTicker;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Circuit breakers, hot-parameter, authority and system rules written in YAML, applied through
 * {@code @RateLimited} and answered over real HTTP: 503, 429 and 403 with their headers.
 */
@SpringBootTest(classes = RuleKindsApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=rule-kinds-test")
@DirtiesContext
class RuleKindsTests {

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  ManualTicker ticker;

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    return LocalHttp.get(port, path, headers);
  }

  @Test
  void yamlRulesOfEveryKindAreInForce() {
    assertThat(weir.rules().rules("kinds.breaker").degrade()).singleElement()
        .satisfies(rule -> assertThat(rule.strategy()).isEqualTo(DegradeStrategy.ERROR_COUNT))
        .satisfies(rule -> assertThat(rule.openDuration()).isEqualTo(Duration.ofSeconds(3)));
    assertThat(weir.rules().rules("kinds.product").paramFlow()).singleElement()
        .satisfies(rule -> assertThat(rule.exceptions()).hasSize(1));
    assertThat(weir.rules().rules("kinds.admin").authority()).singleElement()
        .satisfies(rule -> assertThat(rule.strategy()).isEqualTo(AuthorityStrategy.WHITE));
    assertThat(weir.rules().systemRule()).isEqualTo(new SystemRule(2.0, null, null, null, null));
  }

  @Test
  void openCircuitIsA503WithRetryAfterUntilTheProbe() throws Exception {
    assertThat(get("/breaker").body()).isEqualTo("ok");
    assertThat(get("/breaker?fail=true").body()).isEqualTo("failed");
    assertThat(get("/breaker?fail=true").body()).isEqualTo("failed"); // 2 errors > threshold 1: open
    assertThat(weir.statistics("kinds.breaker").circuitState()).isEqualTo(CircuitState.OPEN);

    HttpResponse<String> refused = get("/breaker");
    assertRefusedBy(RuleKind.DEGRADE, refused);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("3");
    assertThat(refused.body()).contains("\"resource\":\"kinds.breaker\"").contains("degrade");

    ticker.advance(Duration.ofMillis(2_500));
    assertThat(get("/breaker").headers().firstValue("Retry-After")).as("0.5 s rounds up").hasValue("1");
    ticker.advance(Duration.ofMillis(500));
    assertThat(get("/breaker").body()).as("the probe succeeds").isEqualTo("ok");
    assertThat(weir.statistics("kinds.breaker").circuitState()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void blockHandlerTypedToDegradeExceptionGetsOnlyThose() throws Exception {
    get("/typed?fail=true");
    get("/typed?fail=true");
    assertThat(get("/typed").body()).isEqualTo("degraded, retry in 10s");
    HttpResponse<String> flow = get("/typed-flow");
    assertRefusedBy(RuleKind.FLOW, flow); // a FlowException passes the DegradeException handler by
  }

  @Test
  void hotParameterLimitIsPerValueAndA429() throws Exception {
    assertThat(get("/products/a").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = get("/products/a");
    assertRefusedBy(RuleKind.PARAM_FLOW, refused);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(get("/products/b").statusCode()).isEqualTo(200);
    for (int i = 0; i < 3; i++) {
      assertThat(get("/products/vip").statusCode()).as("vip has its own count of 3").isEqualTo(200);
    }
    assertRefusedBy(RuleKind.PARAM_FLOW, get("/products/vip"));
  }

  @Test
  void authorityAllowListIsA403ForOtherOrigins() throws Exception {
    assertThat(get("/admin", "X-Caller", "appA").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = get("/admin", "X-Caller", "appB");
    assertRefusedBy(RuleKind.AUTHORITY, refused);
    assertThat(refused.headers().firstValue("Retry-After")).isEmpty();
    assertRefusedBy(RuleKind.AUTHORITY, get("/admin")); // no origin: not on the list
  }

  @Test
  void authorityAllowListWithAllowNoOriginLetsCallsWithoutOriginThrough() throws Exception {
    assertThat(weir.rules().rules("kinds.status").authority()).singleElement()
        .satisfies(rule -> assertThat(rule.allowNoOrigin()).isTrue());
    assertThat(weir.rules().rules("kinds.admin").authority()).singleElement()
        .satisfies(rule -> assertThat(rule.allowNoOrigin()).isFalse());
    assertThat(get("/status").statusCode()).as("no origin").isEqualTo(200);
    assertRefusedBy(RuleKind.AUTHORITY, get("/status", "X-Caller", "appB"));
  }

  @Test
  void systemRuleLimitsInboundCallsOnly() throws Exception {
    ticker.advance(Duration.ofSeconds(5)); // a second of its own
    assertThat(get("/inbound").statusCode()).isEqualTo(200);
    assertThat(get("/inbound").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = get("/inbound");
    assertRefusedBy(RuleKind.SYSTEM, refused);
    assertThat(get("/products/z").statusCode()).as("outbound resources are not system-limited").isEqualTo(200);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(get("/inbound").statusCode()).isEqualTo(200);
  }
}
