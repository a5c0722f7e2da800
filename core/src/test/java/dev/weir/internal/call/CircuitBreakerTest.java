package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.AuthorityException;
import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.CircuitState;
import dev.weir.DegradeException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.FlowException;
import dev.weir.SlotChainTest;
import dev.weir.Weir;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final List<String> transitions = new ArrayList<>();

  private Weir engine(DegradeRule... rules) {
    return Weir.builder().ticker(ticker).rules(RuleSet.empty().withDegrade(List.of(rules)))
        .circuitBreakerListener((rule, from, to, reason) -> transitions.add(from + "->" + to)).build();
  }

  private static DegradeRule errorRatio(double threshold) {
    return DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(threshold).minRequestAmount(4)
        .statInterval(Duration.ofSeconds(1)).openDuration(Duration.ofSeconds(5)).build();
  }

  /** One call that fails or not; returns the refusal, or null when it ran. */
  private BlockException call(Weir weir, boolean fail, Duration took) {
    try (Entry entry = weir.entry("r")) {
      ticker.advance(took);
      if (fail) {
        entry.recordError(new IllegalStateException("failed"));
      }
      return null;
    } catch (BlockException refused) {
      return refused;
    }
  }

  private BlockException call(Weir weir, boolean fail) {
    return call(weir, fail, Duration.ZERO);
  }

  @Test
  void errorRatioOpensOnlyAboveTheThreshold() {
    Weir weir = engine(errorRatio(0.5));
    call(weir, true);
    call(weir, true);
    call(weir, false);
    call(weir, false); // 2 of 4 = 0.5: equal, not greater
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    call(weir, true); // 3 of 5 = 0.6
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    BlockException refused = call(weir, false);
    assertThat(refused).isInstanceOf(DegradeException.class);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(5));
    assertThat(weir.statistics("r").totalBlocked(RuleKind.DEGRADE)).isEqualTo(1);
  }

  @Test
  void nothingOpensBelowTheMinimumRequestAmount() {
    Weir weir = engine(errorRatio(0.1));
    for (int i = 0; i < 3; i++) {
      call(weir, true);
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void statisticsSlideOverTheInterval() {
    Weir weir = engine(errorRatio(0.5));
    call(weir, true);
    call(weir, true);
    call(weir, true);
    ticker.advance(Duration.ofMillis(1_000)); // the three failures leave the window
    call(weir, true);
    call(weir, false);
    call(weir, false);
    call(weir, false);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void afterOpenDurationExactlyOneProbePassesAndItsSuccessCloses() {
    Weir weir = engine(errorRatio(0.5));
    for (int i = 0; i < 4; i++) {
      call(weir, true);
    }
    ticker.advance(Duration.ofSeconds(5).minusNanos(1));
    assertThat(call(weir, false).retryAfter()).isEqualTo(Duration.ofNanos(1));
    ticker.advanceNanos(1);

    Entry probe = weir.entry("r");
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(Calls.tryOnce(weir, "r")).as("others are refused while the probe runs")
        .isInstanceOf(DegradeException.class);
    probe.close();
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");

    // Fresh statistics: one failure is not enough to reopen.
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void failedProbeReopensForAnotherPeriod() {
    Weir weir = engine(errorRatio(0.5));
    for (int i = 0; i < 4; i++) {
      call(weir, true);
    }
    ticker.advance(Duration.ofSeconds(5));
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    assertThat(call(weir, false).retryAfter()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void slowRatioCountsCallsSlowerThanTheThreshold() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.SLOW_RATIO).threshold(0.5)
        .slowCallThreshold(Duration.ofMillis(100)).minRequestAmount(2).openDuration(Duration.ofSeconds(1)).build();
    Weir weir = engine(rule);
    call(weir, false, Duration.ofMillis(100)); // exactly the threshold: not slow
    call(weir, false, Duration.ofMillis(101));
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED); // 1 of 2 = 0.5
    call(weir, false, Duration.ofMillis(150));
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);

    ticker.advance(Duration.ofSeconds(1));
    call(weir, true, Duration.ofMillis(5)); // a fast probe closes a slow-ratio breaker, failed or not
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void slowRatioOfOneOpensWhenEveryCallIsSlow() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.SLOW_RATIO).threshold(1.0)
        .slowCallThreshold(Duration.ofMillis(10)).minRequestAmount(3).build();
    Weir weir = engine(rule);
    call(weir, false, Duration.ofMillis(20));
    call(weir, false, Duration.ofMillis(20));
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    call(weir, false, Duration.ofMillis(20));
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void errorCountOpensAboveTheCount() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(2)
        .minRequestAmount(1).build();
    Weir weir = engine(rule);
    call(weir, true);
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void refusedCallsNeverCountAsFailures() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.empty()
        .withFlow(List.of(FlowRule.qps("r", 1)))
        .withDegrade(List.of(errorRatio(0.1)))).build();
    call(weir, false);
    for (int i = 0; i < 10; i++) {
      assertThat(call(weir, false)).isInstanceOf(FlowException.class);
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void probeAdmittedByOneBreakerAndRefusedByAnotherReopensTheFirst() {
    DegradeRule first = errorRatio(0.5);
    DegradeRule second = DegradeRule.builder("r")
        .strategy(DegradeStrategy.ERROR_COUNT).threshold(3).minRequestAmount(1)
        .openDuration(Duration.ofSeconds(60)).build();
    Weir weir = engine(first, second);
    for (int i = 0; i < 4; i++) {
      call(weir, true); // both open: ratio 1.0 > 0.5 and 4 errors > 3
    }
    ticker.advance(Duration.ofSeconds(5));
    // The first breaker admits a probe, the second (open for 60 s) refuses the call.
    BlockException refused = call(weir, false);
    assertThat(refused).isInstanceOf(DegradeException.class);
    assertThat(refused.rule()).isEqualTo(second);
    assertThat(transitions).containsSubsequence("OPEN->HALF_OPEN", "HALF_OPEN->OPEN");
    // The first is open again for a whole period, not stuck half-open.
    assertThat(((ResourceNode) weir.statistics("r")).rules.breakers[0].state()).isEqualTo(CircuitState.OPEN);
    assertThat(((ResourceNode) weir.statistics("r")).rules.breakers[0].retryAfter(ticker.read()))
        .isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void probeRefusedByALaterFlowRuleReopensTheBreaker() {
    // A custom slot after degrade refuses: the breaker hears about it through blocked().
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.empty().withDegrade(List.of(errorRatio(0.5))))
        .slot(new SlotChainTest.RecordingSlot(dev.weir.spi.SlotOrder.DEGRADE + 10, true)).build();
    for (int i = 0; i < 4; i++) {
      call(weir, true);
    }
    ticker.advance(Duration.ofSeconds(5));
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, "deny")) {
      // not reached
    } catch (AuthorityException expected) {
      // refused after the breaker admitted the probe
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void breakerStateSurvivesAReplacementThatKeepsItsRule() {
    DegradeRule rule = errorRatio(0.5);
    Weir weir = engine(rule);
    for (int i = 0; i < 4; i++) {
      call(weir, true);
    }
    weir.rules().replace("r", RuleSet.empty().withDegrade(List.of(rule)).withFlow(List.of(FlowRule.qps("r", 100))));
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    weir.rules().replace("r", RuleSet.empty().withDegrade(List.of(errorRatio(0.6))));
    assertThat(weir.statistics("r").circuitState()).as("a changed rule starts closed").isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void openBreakerOnAResourceWithoutBreakersIsClosed() {
    Weir weir = engine();
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }
}
