package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.CircuitState;
import dev.weir.DegradeException;
import dev.weir.Entry;
import dev.weir.FakeTicker;
import dev.weir.Weir;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Driven ticker, exact arithmetic: a success that reaches {@code min-request-amount} trips the
 * breaker (every strategy), and a probe that never completes times out (every strategy).
 */
class CircuitBreakerTimeoutTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> transitions = new ArrayList<>();

  private Weir engine(DegradeRule rule) {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.empty().withDegrade(List.of(rule)))
        .circuitBreakerListener((r, from, to, reason) -> transitions.add(from + "->" + to)).build();
    Calls.tryOnce(weir, "other"); // the engine is warm; "r" has seen no call
    return weir;
  }

  private static DegradeRule.Builder rule(DegradeStrategy strategy, double threshold, int min) {
    return DegradeRule.builder("r").strategy(strategy).threshold(threshold).minRequestAmount(min)
        .statInterval(Duration.ofSeconds(1)).openDuration(Duration.ofSeconds(5));
  }

  /** One completed call: failed or not, taking {@code took}; returns the refusal, or null when it ran. */
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

  private CircuitState state(Weir weir) {
    return weir.statistics("r").circuitState();
  }

  // --- defect 6: the call that reaches the minimum is a success ---

  @Test
  void errorRatioTripsOnTheSuccessThatReachesTheMinimum() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_RATIO, 0.5, 5).build());
    call(weir, true, Duration.ZERO);
    call(weir, true, Duration.ZERO);
    call(weir, true, Duration.ZERO);
    call(weir, false, Duration.ZERO);
    assertThat(state(weir)).as("4 calls, below the minimum of 5").isEqualTo(CircuitState.CLOSED);
    call(weir, false, Duration.ZERO); // F F F S S: 3 of 5 = 0.6 > 0.5
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    assertThat(transitions).containsExactly("CLOSED->OPEN");
  }

  @Test
  void errorRatioAtTheThresholdOnTheMinimumStaysClosed() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_RATIO, 0.4, 5).build());
    call(weir, true, Duration.ZERO);
    call(weir, true, Duration.ZERO);
    for (int i = 0; i < 3; i++) {
      call(weir, false, Duration.ZERO);
    }
    assertThat(state(weir)).as("2 of 5 = 0.4, not greater than 0.4").isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void slowRatioTripsOnTheFastCallThatReachesTheMinimum() {
    Weir weir = engine(rule(DegradeStrategy.SLOW_RATIO, 0.5, 5).slowCallThreshold(Duration.ofMillis(100)).build());
    for (int i = 0; i < 3; i++) {
      call(weir, false, Duration.ofMillis(101));
    }
    call(weir, false, Duration.ofMillis(100)); // exactly the threshold: not slow
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    call(weir, false, Duration.ofMillis(1)); // 3 slow of 5 = 0.6
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void errorCountTripsOnTheSuccessThatReachesTheMinimum() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_COUNT, 2, 5).build());
    call(weir, true, Duration.ZERO);
    call(weir, true, Duration.ZERO);
    call(weir, true, Duration.ZERO); // 3 errors > 2, but only 3 calls
    call(weir, false, Duration.ZERO);
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    call(weir, false, Duration.ZERO); // 5 calls, 3 errors > 2
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void successesLeavingTheWindowRaiseTheRatioAndTheNextSuccessTrips() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_RATIO, 0.5, 3).build());
    call(weir, false, Duration.ZERO);
    call(weir, false, Duration.ZERO);
    ticker.advance(Duration.ofMillis(500));
    call(weir, true, Duration.ZERO);
    call(weir, true, Duration.ZERO); // 2 of 4 = 0.5: closed
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    ticker.advance(Duration.ofMillis(500)); // the two successes leave the window
    call(weir, false, Duration.ZERO); // F F S: 2 of 3 = 0.67
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  // --- defect 5: a probe that never completes ---

  @Test
  void probeTimeoutIsTheOpenDurationOrForSlowRatioTheLongerOfItAndTheSlowThreshold() {
    assertThat(CircuitBreaker.probeTimeout(rule(DegradeStrategy.ERROR_RATIO, 0.5, 5).build()))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(CircuitBreaker.probeTimeout(rule(DegradeStrategy.ERROR_COUNT, 1, 5).build()))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(CircuitBreaker.probeTimeout(rule(DegradeStrategy.SLOW_RATIO, 0.5, 5)
        .slowCallThreshold(Duration.ofSeconds(2)).build())).isEqualTo(Duration.ofSeconds(5));
    assertThat(CircuitBreaker.probeTimeout(rule(DegradeStrategy.SLOW_RATIO, 0.5, 5)
        .slowCallThreshold(Duration.ofSeconds(8)).build())).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void lostErrorRatioProbeTimesOutAfterTheOpenDuration() {
    lostProbeTimesOut(rule(DegradeStrategy.ERROR_RATIO, 0.5, 1).build(), Duration.ofSeconds(5));
  }

  @Test
  void lostErrorCountProbeTimesOutAfterTheOpenDuration() {
    lostProbeTimesOut(rule(DegradeStrategy.ERROR_COUNT, 0, 1).build(), Duration.ofSeconds(5));
  }

  @Test
  void lostSlowRatioProbeTimesOutAfterTheSlowThresholdWhenThatIsLonger() {
    lostProbeTimesOut(rule(DegradeStrategy.SLOW_RATIO, 0.5, 1).slowCallThreshold(Duration.ofSeconds(8)).build(),
        Duration.ofSeconds(8));
  }

  /** Trips the breaker with one bad call, loses the first probe, checks the timeout to the nanosecond. */
  private void lostProbeTimesOut(DegradeRule rule, Duration timeout) {
    Weir weir = engine(rule);
    boolean slowRatio = rule.strategy() == DegradeStrategy.SLOW_RATIO;
    call(weir, !slowRatio, slowRatio ? rule.slowCallThreshold().plusMillis(1) : Duration.ZERO);
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    ticker.advance(rule.openDuration());

    Entry lost = weir.entry("r"); // the probe; never closed before the timeout
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    ticker.advance(timeout.minusNanos(1));
    assertThat(call(weir, false, Duration.ZERO)).as("one nanosecond before the timeout")
        .isInstanceOf(DegradeException.class);
    ticker.advanceNanos(1);
    Entry second = weir.entry("r"); // the new probe, exactly one
    assertThat(((Call) second).isProbe(breaker(weir))).isTrue();
    assertThat(call(weir, false, Duration.ZERO)).as("a second probe at the same time")
        .isInstanceOf(DegradeException.class);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN", "OPEN->HALF_OPEN");

    second.close(); // fast and fine: closes
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    // The lost probe completes at last, badly: it decides nothing and counts in no window.
    ticker.advance(rule.slowCallThreshold().plusMillis(1));
    lost.recordError(new IllegalStateException("late"));
    lost.close();
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    assertThat(transitions).hasSize(5);
  }

  @Test
  void oneDayAfterAProbeWasLostTheNextCallProbesAndClosesTheBreaker() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_COUNT, 0, 1).build());
    call(weir, true, Duration.ZERO);
    ticker.advance(Duration.ofSeconds(5));
    Thread killed = new Thread(() -> weir.entry("r")); // takes the probe and dies with it
    killed.start();
    assertThat(joined(killed)).isTrue();
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    ticker.advance(Duration.ofDays(1));
    assertThat(call(weir, false, Duration.ZERO)).isNull();
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void stalledProbeSucceedingWhileTheNewOneRunsDoesNotClose() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_RATIO, 0.5, 1).build());
    call(weir, true, Duration.ZERO);
    ticker.advance(Duration.ofSeconds(5));
    Entry stalled = weir.entry("r");
    ticker.advance(Duration.ofSeconds(5));
    Entry fresh = enterOnAnotherThread(weir);
    assertThat(((Call) fresh).isProbe(breaker(weir))).isTrue();
    stalled.close(); // a success, from the probe that timed out
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(call(weir, false, Duration.ZERO)).isInstanceOf(DegradeException.class);
    ticker.advanceNanos(1);
    fresh.recordError(new IllegalStateException("still down"));
    fresh.close();
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    assertThat(breaker(weir).retryAfter(ticker.read())).isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void stalledProbeFailingWhileTheNewOneRunsDoesNotReopen() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_RATIO, 0.5, 1).build());
    call(weir, true, Duration.ZERO);
    ticker.advance(Duration.ofSeconds(5));
    Entry stalled = weir.entry("r");
    ticker.advance(Duration.ofSeconds(5));
    Entry fresh = enterOnAnotherThread(weir);
    stalled.recordError(new IllegalStateException("late failure"));
    stalled.close();
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    fresh.close();
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN", "OPEN->HALF_OPEN",
        "HALF_OPEN->CLOSED");
  }

  @Test
  void callOfAnEarlierClosedPeriodDoesNotCountInTheNextOne() {
    Weir weir = engine(rule(DegradeStrategy.ERROR_COUNT, 0, 1).build());
    Entry early = weir.entry("r"); // admitted while closed, completes two periods later
    call(weir, true, Duration.ZERO);
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    ticker.advance(Duration.ofSeconds(5));
    assertThat(call(weir, false, Duration.ZERO)).isNull(); // probe succeeds
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    early.recordError(new IllegalStateException("failed long ago"));
    early.close();
    assertThat(state(weir)).as("one error would trip this rule, but not one from before the close")
        .isEqualTo(CircuitState.CLOSED);
    call(weir, true, Duration.ZERO);
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  private static CircuitBreaker breaker(Weir weir) {
    return ((ResourceNode) weir.statistics("r")).rules.breakers[0];
  }

  /** Opens an entry on a thread of its own and returns it open (to be closed from here). */
  private static Entry enterOnAnotherThread(Weir weir) {
    Entry[] entered = new Entry[1];
    Thread thread = new Thread(() -> entered[0] = weir.entry("r"));
    thread.start();
    assertThat(joined(thread)).isTrue();
    assertThat(entered[0]).isNotNull();
    return entered[0];
  }

  private static boolean joined(Thread thread) {
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !thread.isAlive();
  }
}
