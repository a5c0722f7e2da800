package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A degrade rule with {@code window: N calls} judges the last N completed calls, however long ago:
 * driven ticker (exact counts, hours between calls), an old reading (a call of an earlier closed
 * period completing late), and validation. Real threads: {@code CallRingTest}.
 */
class CountBasedBreakerTest {

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(DegradeRule rule) {
    return Weir.builder().ticker(ticker).rules(RuleSet.of(rule)).build();
  }

  private static DegradeRule errorRatio(int calls, int minimum) {
    return DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5).minRequestAmount(minimum)
        .windowCalls(calls).openDuration(Duration.ofSeconds(10)).build();
  }

  private void call(Weir weir, boolean fails) {
    try (Entry entry = weir.entry("r")) {
      if (fails) {
        entry.recordError(new IllegalStateException("boom"));
      }
    }
  }

  @Test
  void judgesTheLastNCallsHoweverOldTheyAre() {
    Weir weir = engine(errorRatio(10, 10));
    for (int i = 0; i < 5; i++) {
      call(weir, false);
      ticker.advance(Duration.ofHours(1)); // a time window of any length would have forgotten them
    }
    for (int i = 0; i < 5; i++) {
      call(weir, true);
      ticker.advance(Duration.ofHours(1));
    }
    assertThat(weir.statistics("r").circuitState()).as("5 of 10 failed: 0.5 is not over 0.5")
        .isEqualTo(CircuitState.CLOSED);
    call(weir, true); // replaces the oldest success: 6 of the last 10
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(DegradeException.class);
  }

  @Test
  void fewerCallsThanTheMinimumNeverTrip() {
    Weir weir = engine(errorRatio(10, 4));
    for (int i = 0; i < 3; i++) {
      call(weir, true);
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aProbeThatSucceedsClosesWithAFreshWindowAndOldCallsDoNotCount() {
    Weir weir = engine(errorRatio(4, 4));
    Entry old = weir.entry("r"); // started in the first closed period, completes in the second
    for (int i = 0; i < 4; i++) {
      call(weir, true);
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    ticker.advance(Duration.ofSeconds(10));
    call(weir, false); // the probe
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    for (int i = 0; i < 3; i++) {
      call(weir, true);
    }
    old.recordError(new IllegalStateException("late"));
    old.close(); // of the earlier period: not counted in the new window
    assertThat(weir.statistics("r").circuitState()).as("3 calls of the new period: under the minimum")
        .isEqualTo(CircuitState.CLOSED);
    call(weir, true);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void slowRatioAndErrorCountCountTheirOwnMeasure() {
    DegradeRule slow = DegradeRule.builder("r").strategy(DegradeStrategy.SLOW_RATIO).threshold(0.5)
        .slowCallThreshold(Duration.ofMillis(100)).minRequestAmount(2).windowCalls(2).build();
    Weir weir = engine(slow);
    try (Entry entry = weir.entry("r")) {
      ticker.advance(Duration.ofMillis(150));
    }
    assertThat(weir.statistics("r").circuitState()).as("one call: under the minimum").isEqualTo(CircuitState.CLOSED);
    try (Entry entry = weir.entry("r")) {
      ticker.advance(Duration.ofMillis(150));
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);

    Weir counting = engine(DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(2)
        .minRequestAmount(1).windowCalls(5).build());
    call(counting, true);
    call(counting, true);
    assertThat(counting.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    call(counting, true);
    assertThat(counting.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aWindowOutOfBoundsOrBelowTheMinimumIsRefusedNamingIt() {
    for (int calls : new int[] {-1, DegradeRule.MAX_WINDOW_CALLS + 1}) {
      InvalidRulesException invalid = org.junit.jupiter.api.Assertions.assertThrows(InvalidRulesException.class,
          () -> engine(errorRatio(calls, 1)));
      assertThat(invalid.getMessage()).contains("window");
    }
    InvalidRulesException belowMinimum = org.junit.jupiter.api.Assertions.assertThrows(InvalidRulesException.class,
        () -> engine(errorRatio(5, 6)));
    assertThat(belowMinimum.getMessage()).contains("min-request-amount");
  }
}
