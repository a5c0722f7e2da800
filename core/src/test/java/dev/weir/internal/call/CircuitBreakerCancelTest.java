package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.CircuitState;
import dev.weir.DegradeException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.FlowException;
import dev.weir.HoldingSlot;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.internal.limit.Circuit;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Entry#cancel()} against circuit breakers, on a driven ticker (exact arithmetic) and in
 * deterministic interleavings: a cancelled call has no outcome, so it is neither a success nor a
 * failure; a cancelled probe is handed back (the next call probes) and never closes the breaker; a
 * slow-ratio call cancelled after the slow-call threshold was slow.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CircuitBreakerCancelTest {

  private static final Duration OPEN = Duration.ofSeconds(5);

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> transitions = new ArrayList<>();

  private Weir engine(DegradeRule rule, FlowRule... flow) {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(flow).withDegrade(List.of(rule)))
        .circuitBreakerListener((r, from, to, reason) -> transitions.add(from + "->" + to + ": " + reason)).build();
    Calls.tryOnce(weir, "other"); // the engine is warm; "r" has seen no call
    return weir;
  }

  private static DegradeRule errorRatio() {
    return DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5).minRequestAmount(4)
        .statInterval(Duration.ofSeconds(1)).openDuration(OPEN).build();
  }

  /** Slow-ratio above 0.6 of at least 2 calls; a call over 100 ms is slow. */
  private static DegradeRule slowRatio() {
    return DegradeRule.builder("r").strategy(DegradeStrategy.SLOW_RATIO).threshold(0.6).minRequestAmount(2)
        .slowCallThreshold(Duration.ofMillis(100)).statInterval(Duration.ofSeconds(10)).openDuration(OPEN).build();
  }

  private CircuitState state(Weir weir) {
    return weir.statistics("r").circuitState();
  }

  private void failed(Weir weir) {
    Entry entry = weir.asyncEntry("r", EntryType.OUT, 1);
    entry.recordError(new IllegalStateException("down"));
    entry.close();
  }

  /** Trips an error-ratio breaker with four failures, then lets its open period pass. */
  private void openAndDue(Weir weir) {
    for (int i = 0; i < 4; i++) {
      failed(weir);
    }
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);
  }

  @Test
  void aCancelledProbeIsHandedBackAndTheNextCallProbesAtOnce() {
    Weir weir = engine(errorRatio());
    openAndDue(weir);
    Entry probe = weir.asyncEntry("r", EntryType.OUT, 1);
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    ticker.advance(Duration.ofMillis(10));
    probe.cancel();
    assertThat(state(weir)).as("a cancel proves nothing: not closed").isEqualTo(CircuitState.OPEN);
    assertThat(transitions).last().isEqualTo("HALF_OPEN->OPEN: " + CircuitBreaker.PROBE_CANCELLED);

    Entry next = weir.asyncEntry("r", EntryType.OUT, 1); // same reading: no open period to wait
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(transitions).last().isEqualTo("OPEN->HALF_OPEN: " + Circuit.PROBING_AFTER_HAND_BACK);
    assertThat(((Call) next).isProbe(((ResourceNode) weir.statistics("r")).rules.breakers[0])).isTrue();
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).as("one probe at a time")
        .isInstanceOf(DegradeException.class);
    next.close();
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    assertThat(weir.statistics("r").totalSucceeded()).as("the statistics count a cancel as a completion")
        .isEqualTo(2);
  }

  @Test
  void cancelledCallsCountInNoWindowNeitherAsSuccessesNorAsFailures() {
    Weir weir = engine(errorRatio());
    failed(weir);
    for (int i = 0; i < 3; i++) {
      weir.asyncEntry("r", EntryType.OUT, 1).cancel(); // as successes: 1 of 4 failed, then 3 of 7 below
    }
    failed(weir);
    failed(weir); // 3 failures: below the minimum of 4
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    weir.asyncEntry("r", EntryType.OUT, 1).close(); // 3 of 4 = 0.75
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aCancelAfterARecordedErrorIsAFailure() {
    Weir weir = engine(errorRatio());
    openAndDue(weir);
    Entry probe = weir.asyncEntry("r", EntryType.OUT, 1);
    probe.recordError(new IllegalStateException("failed, then cancelled"));
    probe.cancel();
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).isInstanceOf(DegradeException.class)
        .extracting(e -> ((BlockException) e).retryAfter()).as("a failed probe: a whole open period")
        .isEqualTo(OPEN);
    assertThat(weir.statistics("r").totalFailed()).isEqualTo(5);
  }

  @Test
  void slowRatioCountsACallCancelledPastTheThresholdAsSlowAndNoOtherCancel() {
    Weir weir = engine(slowRatio());
    Entry slow = weir.asyncEntry("r", EntryType.OUT, 1);
    ticker.advance(Duration.ofMillis(150));
    slow.close(); // 1 slow of 1: below the minimum
    for (int i = 0; i < 3; i++) {
      Entry fast = weir.asyncEntry("r", EntryType.OUT, 1);
      ticker.advance(Duration.ofMillis(50));
      fast.cancel(); // not shown fast: counted nowhere (as fast calls: 1 of 4, then 2 of 5)
    }
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
    Entry cancelledSlow = weir.asyncEntry("r", EntryType.OUT, 1);
    ticker.advance(Duration.ofMillis(101));
    cancelledSlow.cancel(); // ran past the threshold: slow, 2 of 2
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aSlowRatioProbeCancelledPastTheThresholdReopensForAWholePeriodAndOneCancelledBeforeIsHandedBack() {
    Weir weir = engine(slowRatio());
    for (int i = 0; i < 2; i++) {
      Entry slow = weir.asyncEntry("r", EntryType.OUT, 1);
      ticker.advance(Duration.ofMillis(150));
      slow.close();
    }
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);

    Entry quicklyCancelled = weir.asyncEntry("r", EntryType.OUT, 1);
    ticker.advance(Duration.ofMillis(100)); // not past the threshold
    quicklyCancelled.cancel();
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    Entry slowlyCancelled = weir.asyncEntry("r", EntryType.OUT, 1); // probes at once
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    ticker.advance(Duration.ofMillis(101));
    slowlyCancelled.cancel();
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).isInstanceOf(DegradeException.class)
        .extracting(e -> ((BlockException) e).retryAfter()).isEqualTo(OPEN);
    assertThat(transitions).last().asString().isEqualTo("HALF_OPEN->OPEN: probe was slow");
  }

  @Test
  void aCancelledCallGivesItsThreadsPermitBackAndCloseAndCancelDecideOnce() {
    Weir weir = engine(errorRatio(), FlowRule.threads("r", 1));
    Entry first = weir.asyncEntry("r", EntryType.OUT, 1);
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).isInstanceOf(FlowException.class);
    first.cancel();
    first.close();
    first.cancel();
    Entry second = weir.asyncEntry("r", EntryType.OUT, 1);
    second.recordError(new IllegalStateException("down"));
    second.close();
    second.cancel(); // after the close: changes nothing
    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.activeCalls()).isZero();
    assertThat(stats.totalSucceeded()).isEqualTo(1);
    assertThat(stats.totalFailed()).isEqualTo(1);
  }

  @Test
  void aSynchronousEntryMayBeCancelledToo() {
    Weir weir = engine(errorRatio());
    openAndDue(weir);
    Entry probe = weir.entry("r");
    probe.cancel();
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
    try (Entry next = weir.entry("r")) {
      assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    }
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
  }

  // --- interleavings ---

  @Test
  void aCancelOfAProbeThatTimedOutDecidesNothingForTheNewProbe() {
    Weir weir = engine(errorRatio());
    openAndDue(weir);
    Entry stalled = weir.asyncEntry("r", EntryType.OUT, 1);
    ticker.advance(CircuitBreaker.probeTimeout(errorRatio()));
    Entry fresh = weir.asyncEntry("r", EntryType.OUT, 1); // the stalled probe timed out: a new one
    stalled.cancel();
    assertThat(state(weir)).isEqualTo(CircuitState.HALF_OPEN);
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).as("the new probe is still the only one")
        .isInstanceOf(DegradeException.class);
    fresh.recordError(new IllegalStateException("still down"));
    fresh.close();
    assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
  }

  /**
   * A call reads the clock before the probe is admitted and is held; the probe is cancelled; then
   * the held call (its reading older than the probe's) and a fresh one arrive: only the fresh one
   * probes, so never two probes, and the held reading is never the one that probes.
   */
  @Test
  void aReadingHeldAcrossAHandBackNeverMakesASecondProbe() {
    HoldingSlot holding = new HoldingSlot();
    Weir weir = Weir.builder().ticker(ticker).slot(holding).rules(RuleSet.empty().withDegrade(List.of(errorRatio())))
        .build();
    openAndDue(weir);
    HoldingSlot.Held<BlockException> late = holding.hold(() -> {
      try {
        weir.asyncEntry("r", EntryType.OUT, 1); // left open if admitted: the test then fails below
        return null;
      } catch (BlockException refused) {
        return refused;
      }
    });
    ticker.advanceNanos(1);
    Entry probe = weir.asyncEntry("r", EntryType.OUT, 1);
    probe.cancel();
    ticker.advanceNanos(1);
    Entry next = weir.asyncEntry("r", EntryType.OUT, 1);
    assertThat(late.release()).as("the held call, older than the handed-back probe").isInstanceOf(DegradeException.class);
    next.close();
    assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
  }

  /**
   * The probe's work completes on one thread while its caller cancels on another, released
   * together, many times: exactly one of the two decides, and the breaker is then either closed (the
   * completion won) or open with the next call probing (the cancel won), never both, never neither.
   */
  @Test
  void aCompletionAndACancelRacingOnAProbeDecideOnce() throws Exception {
    Weir weir = engine(errorRatio());
    CircuitBreaker breaker = ((ResourceNode) weir.statistics("r")).rules.breakers[0];
    int closedWins = 0;
    int cancelWins = 0;
    for (int round = 0; round < 300; round++) {
      openAndDue(weir);
      Entry probe = weir.asyncEntry("r", EntryType.OUT, 1);
      assertThat(((Call) probe).isProbe(breaker)).isTrue();
      CountDownLatch go = new CountDownLatch(1);
      CompletableFuture<Void> completing = CompletableFuture.runAsync(() -> {
        await(go);
        probe.close();
      });
      CompletableFuture<Void> cancelling = CompletableFuture.runAsync(() -> {
        await(go);
        probe.cancel();
      });
      go.countDown();
      completing.get(5, TimeUnit.SECONDS);
      cancelling.get(5, TimeUnit.SECONDS);
      if (state(weir) == CircuitState.CLOSED) {
        closedWins++;
      } else {
        assertThat(state(weir)).isEqualTo(CircuitState.OPEN);
        Entry next = weir.asyncEntry("r", EntryType.OUT, 1); // the cancel won: the next call probes at once
        assertThat(((Call) next).isProbe(breaker)).isTrue();
        next.close();
        cancelWins++;
      }
      assertThat(state(weir)).isEqualTo(CircuitState.CLOSED);
      ticker.advance(Duration.ofSeconds(2)); // a fresh window for the next round
    }
    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.totalSucceeded()).as("each probe completed once, plus the next call after each cancel")
        .isEqualTo(closedWins + 2L * cancelWins);
    assertThat(stats.totalFailed()).isEqualTo(4 * 300);
    assertThat(stats.activeCalls()).isZero();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(4, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
