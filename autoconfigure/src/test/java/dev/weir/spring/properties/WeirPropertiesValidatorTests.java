package dev.weir.spring.properties;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.RuleViolation;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link WeirPropertiesValidator} on its own, without a Spring context: each kind of rule, the
 * system rule, the cluster settings, the engine settings and the required values, each problem with
 * its exact property path and message.
 */
class WeirPropertiesValidatorTests {

  /** An engine without a cluster client: what judges the rules. */
  private static final Weir ENGINE = Weir.builder().build();

  @AfterAll
  static void closeEngine() {
    ENGINE.close();
  }

  private final WeirProperties properties = new WeirProperties();

  private List<String> violations() {
    return violations(false);
  }

  private List<String> violations(boolean clusterClient) {
    return WeirPropertiesValidator.validate(properties, ENGINE.rules(), clusterClient).stream()
        .map(RuleViolation::toString).toList();
  }

  private FlowRuleProperties flow(String resource, Double count) {
    FlowRuleProperties rule = new FlowRuleProperties();
    rule.setResource(resource);
    rule.setCount(count);
    properties.getFlow().add(rule);
    return rule;
  }

  private DegradeRuleProperties degrade(DegradeStrategy strategy, Double threshold) {
    DegradeRuleProperties rule = new DegradeRuleProperties();
    rule.setResource("a");
    rule.setStrategy(strategy);
    rule.setThreshold(threshold);
    properties.getDegrade().add(rule);
    return rule;
  }

  private ParamFlowRuleProperties paramFlow(Double count) {
    ParamFlowRuleProperties rule = new ParamFlowRuleProperties();
    rule.setResource("a");
    rule.setCount(count);
    properties.getParamFlow().add(rule);
    return rule;
  }

  private static ParamFlowItemProperties item(String value, Double count) {
    ParamFlowItemProperties item = new ParamFlowItemProperties();
    item.setValue(value);
    item.setCount(count);
    return item;
  }

  private AuthorityRuleProperties authority(String... origins) {
    AuthorityRuleProperties rule = new AuthorityRuleProperties();
    rule.setResource("a");
    rule.setStrategy(AuthorityStrategy.WHITE);
    rule.setLimitApp(List.of(origins));
    properties.getAuthority().add(rule);
    return rule;
  }

  @Test
  void theDefaultsAndValidRulesOfEveryKindAreValid() {
    flow("a", 10.0);
    degrade(DegradeStrategy.ERROR_RATIO, 0.5);
    paramFlow(5.0).getExceptions().add(item("vip", 50.0));
    authority("appA");
    properties.getSystem().setMaxQps(100.0);
    assertThat(violations()).isEmpty();
  }

  @Nested
  class Flow {

    @Test
    void negativeCount() {
      flow("a", -1.0);
      assertThat(violations()).containsExactly("weir.flow[0].count: must be a number >= 0, was -1.0");
    }

    @Test
    void missingCountIsReportedOnceAsRequired() {
      flow("a", null);
      assertThat(violations()).containsExactly("weir.flow[0].count: is required: a number >= 0 (calls per interval"
          + " for grade qps, calls inside at once for grade threads; 0 refuses every call)");
    }

    @Test
    void missingResource() {
      flow(null, 5.0);
      assertThat(violations()).containsExactly("weir.flow[0].resource: is required");
    }

    @Test
    void theIndexIsTheRulesPlaceInItsList() {
      flow("a", 1.0);
      flow("b", -2.0);
      assertThat(violations()).containsExactly("weir.flow[1].count: must be a number >= 0, was -2.0");
    }

    @Test
    void aNameIsASafeHeaderToken() {
      flow("a", 1.0).setName("ok:name_1.0-x");
      flow("a", 2.0).setName("evil\r\nSet-Cookie: a=b");
      flow("a", 3.0).setName("   ");
      assertThat(violations()).containsExactly("weir.flow[1].name: must be 1 to 64 characters, each a letter"
          + " (A-Z, a-z), a digit or one of . _ : - (it is sent in HTTP headers); it has U+000D at position 4");
    }

    @Test
    void twoRateRulesOfAResourceCannotShareAName() {
      flow("a", 1.0).setName("api");
      flow("b", 1.0).setName("api");
      paramFlow(5.0).setName("api");
      assertThat(violations()).containsExactly("weir.param-flow[0].name: 'api' is already the name of flow[0] of the"
          + " same resource; each rate rule of a resource needs a name of its own (a response names each policy once)");
    }

    @Test
    void relatedNeedsARefResource() {
      flow("a", 1.0).setStrategy(FlowStrategy.RELATED);
      assertThat(violations())
          .containsExactly("weir.flow[0].ref-resource: is required for strategy related (the other resource)");
    }

    @Test
    void warmUpColdFactor() {
      FlowRuleProperties rule = flow("a", 9.0);
      rule.setControlBehavior(ControlBehavior.WARM_UP);
      rule.setColdFactor(1);
      assertThat(violations()).containsExactly("weir.flow[0].cold-factor: must be at least 2, was 1");
    }

    @Test
    void threadsTakeRejectOnly() {
      FlowRuleProperties rule = flow("a", 1.0);
      rule.setGrade(FlowGrade.THREADS);
      rule.setControlBehavior(ControlBehavior.WARM_UP);
      assertThat(violations())
          .containsExactly("weir.flow[0].control-behavior: must be reject for grade threads, was warm-up");
    }

    @Test
    void clusterModeNeedsAClusterClient() {
      flow("a", 9.0).setClusterMode(true);
      assertThat(violations()).containsExactly("weir.flow[0].cluster-mode: needs a cluster client, and this engine "
          + "has none (weir.cluster.enabled)");
    }

    @Test
    void duplicateRule() {
      flow("a", 9.0);
      flow("a", 9.0);
      assertThat(violations()).containsExactly("weir.flow[1]: duplicate of rule [0]; remove one");
    }
  }

  @Nested
  class Degrade {

    @Test
    void missingThresholdIsReportedOnceAsRequired() {
      degrade(DegradeStrategy.ERROR_COUNT, null);
      assertThat(violations()).containsExactly("weir.degrade[0].threshold: is required: a ratio from 0 to 1 for "
          + "slow-ratio and error-ratio, a number of errors for error-count");
    }

    @Test
    void missingStrategy() {
      degrade(null, 3.0);
      assertThat(violations()).contains("weir.degrade[0].strategy: is required: slow-ratio, error-ratio or "
          + "error-count");
    }

    @Test
    void slowRatioNeedsItsSlowCallThreshold() {
      degrade(DegradeStrategy.SLOW_RATIO, 0.5);
      assertThat(violations()).contains("weir.degrade[0].slow-call-threshold: is required for strategy slow-ratio: "
          + "calls slower than this are slow (e.g. 200ms)");
    }

    @Test
    void ratioAboveOne() {
      degrade(DegradeStrategy.ERROR_RATIO, 1.5);
      assertThat(violations())
          .containsExactly("weir.degrade[0].threshold: must be a ratio from 0 to 1 for strategy error-ratio, was 1.5");
    }

    @Test
    void minRequestAmount() {
      degrade(DegradeStrategy.ERROR_RATIO, 0.5).setMinRequestAmount(0);
      assertThat(violations()).containsExactly("weir.degrade[0].min-request-amount: must be at least 1, was 0");
    }
  }

  @Nested
  class ParamFlow {

    @Test
    void missingCount() {
      paramFlow(null);
      assertThat(violations())
          .containsExactly("weir.param-flow[0].count: is required: a number >= 0 per argument value");
    }

    @Test
    void exceptionWithoutValueOrCount() {
      paramFlow(10.0).getExceptions().add(item(null, null));
      assertThat(violations()).containsExactly(
          "weir.param-flow[0].exceptions[0].value: is required: the argument value as text",
          "weir.param-flow[0].exceptions[0].count: is required: a number >= 0");
    }

    @Test
    void valueListedTwice() {
      ParamFlowRuleProperties rule = paramFlow(10.0);
      rule.getExceptions().add(item("vip", 50.0));
      rule.getExceptions().add(item("vip", 60.0));
      assertThat(violations()).containsExactly("weir.param-flow[0].exceptions[1].value: 'vip' is listed twice");
    }

    @Test
    void burstWithQueue() {
      ParamFlowRuleProperties rule = paramFlow(10.0);
      rule.setBurst(5);
      rule.setControlBehavior(ControlBehavior.QUEUE);
      assertThat(violations()).containsExactly(
          "weir.param-flow[0].burst: applies to grade qps with control-behavior reject only");
    }

    @Test
    void aNameOfTheFormOfUnnamedRulesOrTooLong() {
      paramFlow(10.0).setName("flow-1");
      paramFlow(10.0).setName("n".repeat(65));
      assertThat(violations()).containsExactly(
          "weir.param-flow[0].name: 'flow-1' is how an unnamed rule is called (flow-0, param-flow-1); choose another"
              + " name, or none",
          "weir.param-flow[1].name: must be 1 to 64 characters, each a letter (A-Z, a-z), a digit or one of . _ : -"
              + " (it is sent in HTTP headers); it was 65 characters");
    }

    @Test
    void durationBeyondADay() {
      paramFlow(10.0).setDuration(Duration.ofDays(2));
      assertThat(violations()).containsExactly(
          "weir.param-flow[0].duration: must be whole milliseconds from 1ms to 1d, was PT48H");
    }
  }

  @Nested
  class Authority {

    @Test
    void noOrigin() {
      authority();
      assertThat(violations()).containsExactly("weir.authority[0].limit-app: must list at least one origin");
    }

    @Test
    void originListedTwice() {
      authority("a", "a");
      assertThat(violations()).containsExactly("weir.authority[0].limit-app[1]: lists 'a' twice");
    }
  }

  @Nested
  class SystemRule {

    @Test
    void cpuUsageAboveOne() {
      properties.getSystem().setMaxCpuUsage(1.5);
      assertThat(violations()).containsExactly("weir.system.max-cpu-usage: must be a fraction in (0, 1], was 1.5");
    }

    @Test
    void negativeQps() {
      properties.getSystem().setMaxQps(-5.0);
      assertThat(violations()).containsExactly("weir.system.max-qps: must be a number >= 0, was -5.0");
    }

    @Test
    void zeroAverageResponseTime() {
      properties.getSystem().setMaxAvgRt(Duration.ZERO);
      assertThat(violations()).containsExactly("weir.system.max-avg-rt: must be a positive duration, was PT0S");
    }
  }

  @Nested
  class Cluster {

    @Test
    void enabledWithoutAClient() {
      properties.getCluster().setEnabled(true);
      assertThat(violations(false)).containsExactly("weir.cluster.enabled: cluster mode counts in Redis and needs "
          + "spring-boot-starter-data-redis (Lettuce) on the classpath, or a ClusterClient bean");
      assertThat(violations(true)).isEmpty();
    }

    @Test
    void durations() {
      properties.getCluster().setTimeout(Duration.ZERO);
      properties.getCluster().setOpenDuration(Duration.ofDays(2));
      assertThat(violations()).containsExactly(
          "weir.cluster.timeout: must be a positive duration up to 1m, was PT0S",
          "weir.cluster.open-duration: must be a positive duration up to 1d, was PT48H");
    }

    @Test
    void keyPrefixWithBraces() {
      properties.getCluster().setKeyPrefix("{app}");
      assertThat(violations()).containsExactly("weir.cluster.key-prefix: must be non-blank and without braces "
          + "(Weir adds the hash tag), was '{app}'");
      assertThat(WeirPropertiesValidator.isValidKeyPrefix("{app}")).isFalse();
      assertThat(WeirPropertiesValidator.isValidKeyPrefix(" ")).isFalse();
      assertThat(WeirPropertiesValidator.isValidKeyPrefix("shop")).isTrue();
    }

    @Test
    void countsAndFallback() {
      properties.getCluster().setFailureThreshold(0);
      properties.getCluster().setMaxInFlight(0);
      properties.getCluster().setFallback(null);
      assertThat(violations()).containsExactly(
          "weir.cluster.fallback: must be local, share, allow or deny",
          "weir.cluster.failure-threshold: must be at least 1, was 0",
          "weir.cluster.max-in-flight: must be at least 1, was 0");
    }
  }

  @Nested
  class EngineSettings {

    @Test
    void maxResources() {
      properties.setMaxResources(0);
      assertThat(violations()).containsExactly("weir.max-resources: must be at least 1, was 0");
    }

    @Test
    void sampleCount() {
      properties.getStatistics().setSampleCount(3);
      assertThat(violations()).containsExactly("weir.statistics.sample-count: must be between 1 and 1000 and divide "
          + "1000000000 (1, 2, 4, 5, 10, 20, ...), was 3");
    }
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    properties.setMaxResources(0);
    flow("a", -1.0);
    degrade(DegradeStrategy.ERROR_RATIO, 2.0);
    properties.getSystem().setMaxCpuUsage(2.0);
    properties.getCluster().setMaxInFlight(0);
    assertThat(violations()).map(violation -> violation.substring(0, violation.indexOf(':'))).containsExactly(
        "weir.max-resources", "weir.flow[0].count", "weir.degrade[0].threshold", "weir.system.max-cpu-usage",
        "weir.cluster.max-in-flight");
  }

  @Test
  void postedRulesAreNamedRelativeToTheBody() {
    FlowRuleProperties rule = new FlowRuleProperties();
    rule.setResource("a");
    rule.setCount(-2.0);
    rule.setName("a b");
    DegradeRuleProperties breaker = new DegradeRuleProperties();
    breaker.setResource("a");
    breaker.setStrategy(DegradeStrategy.SLOW_RATIO);
    breaker.setThreshold(0.5);
    RuleLists posted = new RuleLists(List.of(rule), List.of(breaker), List.of(), List.of());
    assertThat(WeirPropertiesValidator.validateRules(posted, posted.toRuleSet(), ENGINE.rules()))
        .map(RuleViolation::toString).containsExactly(
            "degrade[0].slow-call-threshold: is required for strategy slow-ratio: calls slower than this are slow "
                + "(e.g. 200ms)",
            "flow[0].name: must be 1 to 64 characters, each a letter (A-Z, a-z), a digit or one of . _ : - (it is"
                + " sent in HTTP headers); it has U+0020 at position 1",
            "flow[0].count: must be a number >= 0, was -2.0");
  }

  @Test
  void relatedRuleNamingAnUnknownResource() {
    FlowRuleProperties rule = flow("a", 1.0);
    rule.setStrategy(FlowStrategy.RELATED);
    rule.setRefResource("ordres");
    Set<String> known = new TreeSet<>(List.of("orders", "payments"));
    assertThat(WeirPropertiesValidator.unknownReferences(properties, known)).map(RuleViolation::toString)
        .containsExactly("weir.flow[0].ref-resource: names resource 'ordres', which no @RateLimited method, rule or "
            + "call at start uses (did you mean 'orders'?); known resources: [orders, payments]");
    rule.setRefResource("payments");
    assertThat(WeirPropertiesValidator.unknownReferences(properties, known)).isEmpty();
  }
}
