package dev.weir.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Calls;
import dev.weir.FakeTicker;
import dev.weir.Weir;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every duration of the hot-parameter, circuit-breaker and system rules is bounded, and so is the
 * spacing of hot-parameter permits: a value just inside each bound is valid, one just outside is
 * refused on its field (flow rules: {@link FlowRuleValidatorTest}). An engine refuses such rules
 * before anything changes.
 */
class DurationBoundsTest {

  private static final Duration DAY = Duration.ofDays(1);
  private static final Duration HOUR = Duration.ofHours(1);
  private static final Duration HUGE = Duration.ofDays(200_000);

  static Stream<Arguments> paramFlowBounds() {
    return Stream.of(
        bound("max-queueing-time", queue().maxQueueingTime(HOUR).build(),
            queue().maxQueueingTime(HOUR.plusNanos(1)).build()),
        bound("max-queueing-time", queue().maxQueueingTime(Duration.ZERO).build(),
            queue().maxQueueingTime(HUGE).build()),
        bound("duration", reject().duration(DAY).build(), reject().duration(HUGE).build()),
        bound("duration", queue().duration(DAY).build(), queue().duration(DAY.plusMillis(1)).build()),
        // The token bucket emits one permit every duration / count: at most one day apart.
        bound("count", reject().duration(DAY).count(1).build(), reject().duration(DAY).count(0.999).build()),
        bound("count", queue().duration(DAY).count(1).build(), queue().duration(DAY).count(1e-10).build()),
        bound("exceptions[0].count",
            reject().duration(DAY).exceptions(List.of(new ParamFlowItem("vip", 1))).build(),
            reject().duration(DAY).exceptions(List.of(new ParamFlowItem("vip", 0.5))).build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void paramFlowBounds(String field, ParamFlowRule inside, ParamFlowRule outside) {
    assertThat(ParamFlowRuleValidator.validate(List.of(inside))).isEmpty();
    assertThat(ParamFlowRuleValidator.validate(List.of(outside))).extracting(RuleViolation::field)
        .containsExactly("[0]." + field);
  }

  @Test
  void countZeroAndThreadsHaveNoSpacing() {
    assertThat(ParamFlowRuleValidator.validate(List.of(
        reject().duration(DAY).count(0).exceptions(List.of(new ParamFlowItem("blocked", 0))).build(),
        ParamFlowRule.builder("t").grade(FlowGrade.THREADS).count(0).build()))).isEmpty();
  }

  static Stream<Arguments> degradeBounds() {
    return Stream.of(
        bound("open-duration", breaker().openDuration(DAY).build(), breaker().openDuration(DAY.plusMillis(1)).build()),
        bound("open-duration", breaker().openDuration(DAY).build(), breaker().openDuration(HUGE).build()),
        bound("stat-interval", breaker().statInterval(HOUR).build(), breaker().statInterval(HUGE).build()),
        bound("slow-call-threshold",
            breaker().strategy(DegradeStrategy.SLOW_RATIO).slowCallThreshold(HOUR).build(),
            breaker().strategy(DegradeStrategy.SLOW_RATIO).slowCallThreshold(HOUR.plusMillis(1)).build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void degradeBounds(String field, DegradeRule inside, DegradeRule outside) {
    assertThat(DegradeRuleValidator.validate(List.of(inside))).isEmpty();
    assertThat(DegradeRuleValidator.validate(List.of(outside))).extracting(RuleViolation::field)
        .containsExactly("[0]." + field);
  }

  @Test
  void maxAvgRtIsBounded() {
    assertThat(SystemRuleValidator.validate(new SystemRule(null, null, HOUR, null, null))).isEmpty();
    assertThat(SystemRuleValidator.validate(new SystemRule(null, null, HOUR.plusNanos(1), null, null)))
        .singleElement().hasToString("max-avg-rt: must be from 0ms to 1h, was PT1H0.000000001S");
    assertThat(SystemRuleValidator.validate(new SystemRule(null, null, HUGE, null, null)))
        .extracting(RuleViolation::field).containsExactly("max-avg-rt");
  }

  @Test
  void engineRefusesAnOverflowingRuleAndKeepsTheOneInForce() {
    FakeTicker ticker = new FakeTicker();
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).build()) {
      FlowRule inForce = FlowRule.qps("r", 1);
      weir.rules().update("r", current -> current.withFlow(List.of(inForce)));
      FlowRule overflowing = FlowRule.builder("r").count(5).controlBehavior(ControlBehavior.QUEUE)
          .maxQueueingTime(HUGE).build();

      assertThatThrownBy(() -> weir.rules().replace("r", new RuleSet(List.of(overflowing), List.of(),
          List.of(ParamFlowRule.builder("r").count(5).controlBehavior(ControlBehavior.QUEUE)
              .maxQueueingTime(HUGE).build()), List.of())))
          .isInstanceOf(InvalidRulesException.class)
          .satisfies(e -> assertThat(((InvalidRulesException) e).violations()).extracting(RuleViolation::field)
              .containsExactly("flow[0].max-queueing-time", "param-flow[0].max-queueing-time"));
      assertThatThrownBy(() -> weir.rules().replaceSystemRule(new SystemRule(null, null, HUGE, null, null)))
          .isInstanceOf(InvalidRulesException.class).hasMessageContaining("max-avg-rt");

      assertThat(weir.rules().rules("r")).isEqualTo(new RuleSet(List.of(inForce), List.of(), List.of(), List.of()));
      assertThat(weir.rules().systemRule()).isEqualTo(SystemRule.NONE);
      assertThat(Calls.admitted(weir, "r", 3)).as("the rule in force still decides").isEqualTo(1);
    }
  }

  @Test
  void engineRefusesAPaceSoSlowItWouldOverflow() {
    FakeTicker ticker = new FakeTicker();
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).build()) {
      assertThatThrownBy(() -> weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.builder("r").count(1e-10)
          .controlBehavior(ControlBehavior.QUEUE).build()))))
          .isInstanceOf(InvalidRulesException.class).hasMessageContaining("[0].count");
      assertThat(weir.rules().rules("r").flow()).isEmpty();
    }
  }

  static Arguments bound(String field, Object inside, Object outside) {
    return Arguments.of(field, inside, outside);
  }

  private static ParamFlowRule.Builder reject() {
    return ParamFlowRule.builder("p").count(10);
  }

  private static ParamFlowRule.Builder queue() {
    return reject().controlBehavior(ControlBehavior.QUEUE);
  }

  private static DegradeRule.Builder breaker() {
    return DegradeRule.builder("d").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5);
  }
}
