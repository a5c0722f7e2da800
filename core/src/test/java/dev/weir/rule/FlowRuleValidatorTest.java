package dev.weir.rule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class FlowRuleValidatorTest {

  static Stream<Arguments> invalidRules() {
    FlowRule.Builder base = FlowRule.builder("r").count(10);
    return Stream.of(
        Arguments.of(FlowRule.builder(" ").count(1).build(), "resource"),
        Arguments.of(FlowRule.qps("r", -1), "count"),
        Arguments.of(FlowRule.qps("r", Double.NaN), "count"),
        Arguments.of(FlowRule.qps("r", 3e9), "count"),
        Arguments.of(base.grade(FlowGrade.THREADS).controlBehavior(ControlBehavior.QUEUE).build(), "control-behavior"),
        Arguments.of(FlowRule.builder("r").count(1.5).grade(FlowGrade.THREADS).build(), "count"),
        Arguments.of(FlowRule.builder("r").count(1).grade(FlowGrade.THREADS).interval(Duration.ofMinutes(1)).build(),
            "interval"),
        Arguments.of(FlowRule.builder("r").count(1).interval(Duration.ZERO).build(), "interval"),
        Arguments.of(FlowRule.builder("r").count(1).interval(Duration.ofNanos(1_500_000)).build(), "interval"),
        Arguments.of(FlowRule.builder("r").count(1).interval(Duration.ofDays(2)).build(), "interval"),
        Arguments.of(FlowRule.builder("r").count(1).exact(true).controlBehavior(ControlBehavior.QUEUE).build(), "exact"),
        Arguments.of(FlowRule.builder("r").count(200_000).exact(true).build(), "count"),
        Arguments.of(FlowRule.builder("r").count(1).controlBehavior(ControlBehavior.WARM_UP).coldFactor(1).build(),
            "cold-factor"),
        Arguments.of(FlowRule.builder("r").count(1).controlBehavior(ControlBehavior.WARM_UP)
            .warmUpPeriod(Duration.ZERO).build(), "warm-up-period"),
        Arguments.of(FlowRule.builder("r").count(1).controlBehavior(ControlBehavior.QUEUE)
            .maxQueueingTime(Duration.ofMillis(-1)).build(), "max-queueing-time"),
        Arguments.of(FlowRule.builder("r").count(2e9).controlBehavior(ControlBehavior.QUEUE).build(), "count"),
        Arguments.of(FlowRule.builder("r").count(1).strategy(FlowStrategy.RELATED).build(), "ref-resource"),
        Arguments.of(FlowRule.builder("r").count(1).strategy(FlowStrategy.RELATED).refResource("r").build(),
            "ref-resource"),
        Arguments.of(FlowRule.builder("r").count(1).strategy(FlowStrategy.CHAIN).build(), "ref-resource"),
        Arguments.of(FlowRule.builder("r").count(1).refResource("x").build(), "ref-resource"),
        Arguments.of(FlowRule.builder("r").count(1).strategy(FlowStrategy.RELATED).refResource("x")
            .controlBehavior(ControlBehavior.WARM_UP).build(), "control-behavior"),
        Arguments.of(FlowRule.builder("r").count(1).limitApp("").build(), "limit-app"),
        Arguments.of(FlowRule.builder("r").count(1).grade(FlowGrade.THREADS).clusterMode(true).build(), "cluster-mode"),
        Arguments.of(FlowRule.builder("r").count(1).controlBehavior(ControlBehavior.QUEUE).clusterMode(true).build(),
            "cluster-mode"));
  }

  /** Each bound of a duration or a pacing spacing: a rule just inside it, and the same just outside. */
  static Stream<Arguments> bounds() {
    Duration day = Duration.ofDays(1);
    Duration hour = Duration.ofHours(1);
    return Stream.of(
        bound("max-queueing-time", queue().maxQueueingTime(hour).build(),
            queue().maxQueueingTime(hour.plusNanos(1)).build()),
        bound("max-queueing-time", warmUpQueue().maxQueueingTime(hour).build(),
            warmUpQueue().maxQueueingTime(Duration.ofDays(200_000)).build()),
        bound("max-queueing-time", queue().maxQueueingTime(Duration.ZERO).build(),
            queue().maxQueueingTime(Duration.ofNanos(-1)).build()),
        // A duration no behaviour reads is still bounded: every valid rule converts to nanoseconds.
        bound("max-queueing-time", reject().maxQueueingTime(hour).build(),
            reject().maxQueueingTime(Duration.ofDays(200_000)).build()),
        bound("warm-up-period", warmUp().warmUpPeriod(day).build(), warmUp().warmUpPeriod(day.plusNanos(1)).build()),
        bound("warm-up-period", warmUpQueue().warmUpPeriod(day).build(),
            warmUpQueue().warmUpPeriod(Duration.ofDays(200_000)).build()),
        bound("warm-up-period", warmUp().warmUpPeriod(Duration.ofMillis(1)).build(),
            warmUp().warmUpPeriod(Duration.ofNanos(999_999)).build()),
        bound("warm-up-period", reject().warmUpPeriod(day).build(),
            reject().warmUpPeriod(Duration.ofDays(200_000)).build()),
        // Spacing interval / count of at most one day: count 1 per day is the slowest pace.
        bound("count", queue().interval(day).count(1).build(), queue().interval(day).count(0.999).build()),
        bound("count", queue().interval(Duration.ofSeconds(1)).count(1.0 / 86_400).build(),
            queue().interval(Duration.ofSeconds(1)).count(1e-10).build()),
        // Warm-up starts cold at interval * cold-factor / count: that is the spacing bounded.
        bound("count", warmUp().interval(day).count(3).build(), warmUp().interval(day).count(2.999).build()),
        bound("count", warmUpQueue().interval(day).count(5).coldFactor(5).build(),
            warmUpQueue().interval(day).count(5).coldFactor(6).build()),
        bound("count", warmUp().interval(Duration.ofSeconds(1)).count(1).coldFactor(86_400).build(),
            warmUp().interval(Duration.ofSeconds(1)).count(1).coldFactor(Integer.MAX_VALUE).build()));
  }

  static Arguments bound(String field, FlowRule inside, FlowRule outside) {
    return Arguments.of(field, inside, outside);
  }

  private static FlowRule.Builder reject() {
    return FlowRule.builder("r").count(10);
  }

  private static FlowRule.Builder queue() {
    return reject().controlBehavior(ControlBehavior.QUEUE);
  }

  private static FlowRule.Builder warmUp() {
    return reject().controlBehavior(ControlBehavior.WARM_UP);
  }

  private static FlowRule.Builder warmUpQueue() {
    return reject().controlBehavior(ControlBehavior.WARM_UP_QUEUE);
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("bounds")
  void boundsEveryDurationAndSpacing(String field, FlowRule inside, FlowRule outside) {
    assertThat(FlowRuleValidator.validate(List.of(inside))).isEmpty();
    assertThat(FlowRuleValidator.validate(List.of(outside))).extracting(RuleViolation::field)
        .containsExactly("[0]." + field);
  }

  @Test
  void spacingMessageSaysTheSmallestCount() {
    FlowRule rule = FlowRule.builder("r").count(1e-10).controlBehavior(ControlBehavior.QUEUE)
        .interval(Duration.ofDays(1)).build();
    assertThat(FlowRuleValidator.validate(rule)).singleElement().hasToString(
        "count: spaces calls (interval / count) with control-behavior queue more than 1d apart; it must be at"
            + " least 1.0 here (or 0 to refuse every call), was 1.0E-10");
    assertThat(FlowRuleValidator.validate(FlowRule.builder("r").controlBehavior(ControlBehavior.WARM_UP_QUEUE)
        .count(0).build())).as("count 0 refuses every call; there is no spacing to bound").isEmpty();
  }

  @Test
  void durationMessageSaysTheRange() {
    FlowRule rule = FlowRule.builder("r").count(1).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofDays(200_000)).build();
    assertThat(FlowRuleValidator.validate(rule)).singleElement()
        .hasToString("max-queueing-time: must be from 0ms to 1h, was PT4800000H");
  }

  @ParameterizedTest
  @MethodSource("invalidRules")
  void namesTheOffendingField(FlowRule rule, String field) {
    List<RuleViolation> violations = FlowRuleValidator.validate(List.of(rule));
    assertThat(violations).extracting(RuleViolation::field).contains("[0]." + field);
  }

  @Test
  void validRulesHaveNoViolations() {
    List<FlowRule> rules = List.of(
        FlowRule.qps("a", 0),
        FlowRule.threads("a", 5),
        FlowRule.builder("a").count(100).exact(true).interval(Duration.ofMinutes(1)).build(),
        FlowRule.builder("b").count(0.5).controlBehavior(ControlBehavior.QUEUE).build(),
        FlowRule.builder("b").count(10).controlBehavior(ControlBehavior.WARM_UP_QUEUE).build(),
        FlowRule.builder("b").count(10).strategy(FlowStrategy.CHAIN).refResource("ctx").limitApp("app").build());
    assertThat(FlowRuleValidator.validate(rules)).isEmpty();
  }

  @Test
  void reportsEveryProblemAndDuplicates() {
    List<RuleViolation> violations = FlowRuleValidator.validate(List.of(
        FlowRule.builder("").count(-1).build(), FlowRule.qps("a", 1), FlowRule.qps("a", 1)));
    assertThat(violations).extracting(RuleViolation::field).containsExactly("[0].resource", "[0].count", "[2]");
    assertThat(violations.get(2).message()).contains("duplicate of rule [1]");
    assertThat(violations.get(0).under("weir.flow").toString()).isEqualTo("weir.flow[0].resource: is required");
  }

  static Stream<Arguments> invalidAdaptiveRules() {
    return Stream.of(
        Arguments.of(adaptive().count(10).build(), "count", "does not apply to grade adaptive"),
        Arguments.of(adaptive().controlBehavior(ControlBehavior.QUEUE).build(), "control-behavior",
            "must be reject for grade adaptive, was queue"),
        Arguments.of(adaptive().exact(true).build(), "exact", "applies to grade qps only"),
        Arguments.of(adaptive().interval(Duration.ofMinutes(1)).build(), "interval", "applies to grade qps only"),
        Arguments.of(adaptive().clusterMode(true).build(), "cluster-mode", "applies to grade qps only"),
        Arguments.of(adaptive().strategy(FlowStrategy.RELATED).refResource("other").build(), "strategy",
            "must be direct or chain"),
        Arguments.of(adaptive().limitApp("other").build(), "limit-app", "must be default or an origin name"),
        Arguments.of(adaptive().minLimit(0).build(), "min-limit", "must be from 1 to 1000000, was 0"),
        Arguments.of(adaptive().minLimit(-5).initialLimit(0).build(), "min-limit", "was -5"),
        Arguments.of(adaptive().maxLimit(0).build(), "max-limit", "must be from 1 to 1000000, was 0"),
        Arguments.of(adaptive().maxLimit(1_000_001).build(), "max-limit", "must be from 1 to 1000000"),
        Arguments.of(adaptive().minLimit(50).maxLimit(40).build(), "max-limit", "must be at least min-limit (50)"),
        Arguments.of(adaptive().minLimit(5).initialLimit(4).build(), "initial-limit", "must be from min-limit"),
        Arguments.of(adaptive().maxLimit(30).initialLimit(31).build(), "initial-limit", "(1 to 30)"),
        Arguments.of(adaptive().initialLimit(-1).build(), "initial-limit", "was -1"),
        Arguments.of(FlowRule.builder("r").count(5).minLimit(2).build(), "min-limit", "applies to grade adaptive only"),
        Arguments.of(FlowRule.threads("r", 5).toBuilder().maxLimit(10).build(), "max-limit",
            "applies to grade adaptive only"),
        Arguments.of(FlowRule.builder("r").count(5).initialLimit(3).build(), "initial-limit",
            "applies to grade adaptive only"));
  }

  private static FlowRule.Builder adaptive() {
    return FlowRule.builder("r").grade(FlowGrade.ADAPTIVE);
  }

  @ParameterizedTest(name = "{1}: {2}")
  @MethodSource("invalidAdaptiveRules")
  void adaptiveRulesNameWhatTheyRefuse(FlowRule rule, String field, String message) {
    assertThat(FlowRuleValidator.validate(rule)).singleElement().satisfies(violation -> {
      assertThat(violation.field()).isEqualTo(field);
      assertThat(violation.message()).contains(message);
    });
  }

  @Test
  void adaptiveRulesWithinTheirBoundsAreValid() {
    assertThat(FlowRuleValidator.validate(List.of(
        adaptive().build(),
        FlowRule.adaptive("a", 1, 1, 1),
        FlowRule.adaptive("b", 5, FlowRule.MAX_ADAPTIVE_LIMIT, FlowRule.MAX_ADAPTIVE_LIMIT),
        adaptive().maxLimit(10).build(),
        adaptive().strategy(FlowStrategy.CHAIN).refResource("checkout").limitApp("partner").shadow(true).build())))
        .isEmpty();
  }

  @Test
  void anAdaptiveRuleStartsAtItsInitialLimitOrTwentyWithinItsBounds() {
    assertThat(adaptive().build().startingLimit()).isEqualTo(20);
    assertThat(adaptive().maxLimit(10).build().startingLimit()).isEqualTo(10);
    assertThat(adaptive().minLimit(30).build().startingLimit()).isEqualTo(30);
    assertThat(FlowRule.adaptive("r", 2, 100, 7).startingLimit()).isEqualTo(7);
    assertThat(FlowRule.adaptive("r", 2, 100, 7).toString())
        .isEqualTo("FlowRule{resource=r, grade=ADAPTIVE, min-limit=2, max-limit=100, initial-limit=7}");
  }

  @Test
  void anExactClusterRuleIsBoundedByTheStoresMaximumNotTheLocalOne() {
    FlowRule.Builder exact = FlowRule.builder("r").exact(true).clusterMode(true);
    assertThat(FlowRuleValidator.validate(exact.count(dev.weir.cluster.ClusterLimit.EXACT_MAX_COUNT).build())).isEmpty();
    assertThat(FlowRuleValidator.validate(List.of(exact.count(10_001).build()))).singleElement()
        .satisfies(violation -> assertThat(violation.under("weir.flow").toString()).isEqualTo(
            "weir.flow[0].count: must be at most 10000 with exact: true and cluster-mode: true (the store logs one"
                + " entry per admission), was 10001.0"));
    assertThat(FlowRuleValidator.validate(exact.count(2.5).build())).extracting(RuleViolation::field)
        .containsExactly("count");
    assertThat(FlowRuleValidator.validate(exact.count(10_001).clusterMode(false).build())).isEmpty();
  }
}
