package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Weir#reset()}: statistics and rule state start afresh, the rules stay. */
class ResetTest {

  private final FakeTicker ticker = new FakeTicker();

  @Test
  void resetForgetsStatisticsAndWindowsButKeepsTheRules() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 2))).build();
    weir.entry("r").close();
    weir.entry("r").close();
    assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(FlowException.class);
    assertThat(weir.statistics("r").totalBlocked(RuleKind.FLOW)).isEqualTo(1);

    weir.reset();

    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.totalPassed()).isZero();
    assertThat(stats.totalBlocked()).isZero();
    assertThat(stats.totalBlocked(RuleKind.FLOW)).isZero();
    assertThat(stats.totalSucceeded()).isZero();
    assertThat(stats.passQps()).isZero();
    assertThat(stats.passedLastMinute()).isZero();
    assertThat(weir.rules().rules("r").flow()).containsExactly(FlowRule.qps("r", 2));
    // Same instant, fresh window: two more pass, the third is refused again.
    weir.entry("r").close();
    weir.entry("r").close();
    assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(FlowException.class);
    assertThat(stats.totalPassed()).isEqualTo(2);
  }

  @Test
  void resetClosesAnOpenCircuit() {
    DegradeRule breaker = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(0)
        .minRequestAmount(1).openDuration(Duration.ofSeconds(10)).build();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(breaker)).build();
    try (Entry entry = weir.entry("r")) {
      entry.recordError(new IllegalStateException("down"));
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(DegradeException.class);

    weir.reset();

    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    weir.entry("r").close();
  }

  @Test
  void ruleSetOfSortsRulesByKindInOrder() {
    FlowRule a = FlowRule.qps("a", 1);
    FlowRule b = FlowRule.qps("b", 1);
    DegradeRule d = DegradeRule.builder("a").strategy(DegradeStrategy.ERROR_COUNT).threshold(1).build();
    RuleSet set = RuleSet.of(b, d, a);
    assertThat(set.flow()).containsExactly(b, a);
    assertThat(set.degrade()).containsExactly(d);
    assertThat(set.paramFlow()).isEmpty();
    assertThat(set.authority()).isEmpty();
  }

  @Test
  void ruleKindsHaveTheirTagsAndAreReadBack() {
    for (RuleKind kind : RuleKind.values()) {
      assertThat(RuleKind.ofTag(kind.tag().toUpperCase(java.util.Locale.ROOT))).isSameAs(kind);
    }
    assertThat(RuleKind.PARAM_FLOW.tag()).isEqualTo("param-flow");
    assertThatThrownBy(() -> RuleKind.ofTag("flw")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'flw'");
    assertThat(new FlowException("r", null, 0).ruleKind()).isEqualTo(RuleKind.FLOW);
    assertThat(FlowRule.qps("r", 1).kind()).isEqualTo(RuleKind.FLOW);
    assertThat(dev.weir.rule.SystemRule.NONE.kind()).isEqualTo(RuleKind.SYSTEM);
  }
}
