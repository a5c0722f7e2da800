package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowRuleValidator;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.RuleViolation;
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
}
