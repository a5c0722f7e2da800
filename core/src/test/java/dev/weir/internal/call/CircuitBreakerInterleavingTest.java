package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.CircuitState;
import dev.weir.DegradeException;
import dev.weir.Entry;
import dev.weir.FakeTicker;
import dev.weir.HoldingSlot;
import dev.weir.Weir;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Deterministic interleavings: a thread takes its reading, is held while others apply newer ones,
 * then applies its old reading. A late reading must be decided as if it were the newest: never a
 * second probe, never a shorter open period, never a judgement of a window that has slid on, and a
 * completion or refusal of an older probe never decides for the newer one.
 */
@Timeout(value = 5, unit = TimeUnit.SECONDS)
class CircuitBreakerInterleavingTest {

  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  private final FakeTicker ticker = new FakeTicker();
  private final long t = ticker.read();

  /** A breaker of a real engine, driven directly with explicit readings. */
  private CircuitBreaker breaker(DegradeRule rule) {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.empty().withDegrade(List.of(rule))).build();
    Calls.tryOnce(weir, "r");
    return ((ResourceNode) weir.statistics("r")).rules.breakers[0];
  }

  private static DegradeRule errorCountZero() {
    return DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(0).minRequestAmount(1)
        .openDuration(Duration.ofSeconds(5)).build();
  }

  /**
   * A thread that reads the ticker now, is held until {@link #apply} releases it, then hands its
   * (by then old) reading to {@code action} and returns the result.
   */
  private final class LateThread {
    private final CountDownLatch read = new CountDownLatch(1);
    private final CountDownLatch go = new CountDownLatch(1);
    private final CompletableFuture<Long> result = new CompletableFuture<>();
    private volatile long reading;

    LateThread(LongUnaryOperator action) {
      Thread thread = new Thread(() -> {
        reading = ticker.read();
        read.countDown();
        try {
          if (go.await(4, TimeUnit.SECONDS)) {
            result.complete(action.applyAsLong(reading));
          }
        } catch (InterruptedException | RuntimeException e) {
          result.completeExceptionally(e);
        }
      }, "late-reader");
      thread.start();
      await(read);
    }

    long apply() throws Exception {
      go.countDown();
      return result.get(4, TimeUnit.SECONDS);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(4, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aLateReadingIsNeverASecondProbe() throws Exception {
    CircuitBreaker breaker = breaker(errorCountZero());
    breaker.onComplete(t, t, true, false);
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);

    ticker.set(t + 5 * S + MS);
    LateThread late = new LateThread(breaker::tryPass); // read when a probe was due
    long probe1 = t + 5 * S + 2 * MS;
    assertThat(breaker.tryPass(probe1)).isEqualTo(CircuitBreaker.PROBE);
    assertThat(late.apply()).as("the late reading while a probe runs").isNegative();

    // The first probe is lost; its timeout (the open duration) passes.
    ticker.set(probe1 + 5 * S);
    LateThread lateAgain = new LateThread(breaker::tryPass); // read exactly at the timeout
    long probe2 = probe1 + 5 * S + MS;
    assertThat(breaker.tryPass(probe2)).isEqualTo(CircuitBreaker.PROBE);
    assertThat(lateAgain.apply()).as("a reading past the old probe's timeout, applied after a new probe")
        .isNegative();
    assertThat(breaker.tryPass(probe2 + MS)).isNegative();
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
  }

  @Test
  void twoThreadsWithTheSameDueReadingAdmitOneProbe() throws Exception {
    CircuitBreaker breaker = breaker(errorCountZero());
    breaker.onComplete(t, t, true, false);
    ticker.set(t + 5 * S);
    LateThread first = new LateThread(breaker::tryPass);
    LateThread second = new LateThread(breaker::tryPass);
    long a = first.apply();
    long b = second.apply();
    assertThat(List.of(a, b)).containsOnlyOnce(CircuitBreaker.PROBE);
    assertThat(Math.min(a, b)).isNegative();
  }

  @Test
  void aLateFailureDoesNotShortenTheOpenPeriod() throws Exception {
    CircuitBreaker breaker = breaker(errorCountZero());
    LateThread late = new LateThread(reading -> {
      breaker.onComplete(reading, reading + MS, true, false); // its end reading, 1 ms after its start
      return 0;
    });
    assertThat(breaker.tryPass(t + 3 * S)).isEqualTo(CircuitBreaker.PASS); // others move on, 3 s later
    late.apply();
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    // Open for 5 s from the newest reading (t + 3 s), not from the late one (t + 1 ms).
    assertThat(breaker.tryPass(t + 5 * S + 2 * MS)).isEqualTo(FlowLimiter.refused(3 * S - 2 * MS));
    assertThat(breaker.tryPass(t + 8 * S - 1)).isNegative();
    assertThat(breaker.tryPass(t + 8 * S)).isEqualTo(CircuitBreaker.PROBE);
  }

  @Test
  void aLateFailureIsJudgedOnTheNewestWindow() throws Exception {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5)
        .minRequestAmount(4).statInterval(Duration.ofSeconds(1)).build();
    CircuitBreaker breaker = breaker(rule);
    breaker.onComplete(t, t, true, false);
    breaker.onComplete(t, t, true, false);
    breaker.onComplete(t, t, false, false); // F F S: below the minimum
    ticker.set(t + 10 * MS);
    LateThread late = new LateThread(reading -> {
      breaker.onComplete(t, reading, true, false);
      return 0;
    });
    long later = t + 1_050 * MS; // the window has slid past the first three calls
    breaker.onComplete(later, later, false, false);
    breaker.onComplete(later, later, false, false);
    late.apply();
    // In the window of its own reading it would make F F S F (0.75 of 4); in the newest, S S F.
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    breaker.onComplete(later, later, true, false); // S S F F: 0.5, not above
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    breaker.onComplete(later, later, true, false); // 3 of 5
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aLateRefusalOrCompletionOfAnOlderProbeDecidesNothing() throws Exception {
    CircuitBreaker breaker = breaker(errorCountZero());
    breaker.onComplete(t, t, true, false);
    long probe1 = t + 5 * S;
    assertThat(breaker.tryPass(probe1)).isEqualTo(CircuitBreaker.PROBE);
    long probe2 = probe1 + 5 * S;
    assertThat(breaker.tryPass(probe2)).isEqualTo(CircuitBreaker.PROBE); // the first timed out

    ticker.set(probe2 + MS);
    LateThread refusal = new LateThread(reading -> {
      breaker.probeRefused(probe1, reading); // a later rule refused the first probe, long ago
      return 0;
    });
    refusal.apply();
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    breaker.onComplete(probe1, probe2 + 2 * MS, true, true); // the first probe fails at last
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    breaker.onComplete(t, probe2 + 2 * MS, true, false); // a call from before the open period
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);

    breaker.onComplete(probe2, probe2 + 3 * MS, false, true);
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    // After the close: neither the old probes nor a call admitted before the open period move it.
    breaker.probeRefused(probe2, probe2 + 4 * MS);
    breaker.probeRefused(probe1, probe2 + 4 * MS);
    breaker.onComplete(probe1, probe2 + 4 * MS, true, true);
    breaker.onComplete(t, probe2 + 4 * MS, true, false);
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker.tryPass(probe2 + 5 * MS)).isEqualTo(CircuitBreaker.PASS);
  }

  @Test
  void throughTheEngineAReadingHeldPastAProbeTimeoutIsRefusedOnceANewProbeRuns() throws Exception {
    HoldingSlot holding = new HoldingSlot(); // holds a call after its clock reading, before the breaker
    Weir weir = Weir.builder().ticker(ticker).slot(holding)
        .rules(RuleSet.empty().withDegrade(List.of(errorCountZero()))).build();
    try (Entry entry = weir.entry("r")) {
      entry.recordError(new IllegalStateException("down"));
    }
    ticker.advance(Duration.ofSeconds(5));
    Thread killed = new Thread(() -> weir.entry("r")); // takes the probe and is lost with it
    killed.start();
    killed.join(4_000);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.HALF_OPEN);

    ticker.advance(Duration.ofSeconds(5)); // the lost probe's timeout
    HoldingSlot.Held<BlockException> late = holding.hold(() -> Calls.tryOnce(weir, "r"));
    ticker.advance(Duration.ofMillis(1));
    Entry probe = weir.entry("r"); // on time: the new probe
    assertThat(late.release()).as("the held call, older than the new probe").isInstanceOf(DegradeException.class);
    probe.close();
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }
}
