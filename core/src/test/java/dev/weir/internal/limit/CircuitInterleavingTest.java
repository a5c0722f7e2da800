package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Deterministic interleavings of {@link Circuit}: a thread that took a reading (or judged a closed
 * period, or read the phase inside an outcome) is held while others trip, probe and close, then
 * proceeds. The machine's bounds must hold whatever it held: at most one probe in flight per
 * half-open period, a late reading never shortens an open period, a judgement of an ended period
 * trips nothing, and a stale probe's outcome decides nothing. Every wait has a timeout.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CircuitInterleavingTest {

  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;
  private static final long OPEN = 5 * S;
  private static final long TIMEOUT = 7 * S;

  private final long t = -7_777_777_777_777L;
  private final ConcurrentLinkedQueue<String> heard = new ConcurrentLinkedQueue<>();
  /** When set, the next window the circuit creates (inside a close, between its read and its CAS) waits for {@link #go}. */
  private final AtomicBoolean holdNextWindow = new AtomicBoolean();
  private final CountDownLatch insideClose = new CountDownLatch(1);
  private final CountDownLatch go = new CountDownLatch(1);
  private final Circuit<AtomicInteger> circuit = new Circuit<>(OPEN, TIMEOUT, () -> {
    if (holdNextWindow.compareAndSet(true, false)) {
      insideClose.countDown();
      await(go);
    }
    return new AtomicInteger();
  }, (from, to, reason) -> heard.add(from + ">" + to));

  /** Runs {@code action} on its own thread once {@link #release} is called. */
  private static final class Held<T> {
    private final CountDownLatch released = new CountDownLatch(1);
    private final CompletableFuture<T> result = new CompletableFuture<>();

    Held(Supplier<T> action) {
      Thread thread = new Thread(() -> {
        try {
          if (released.await(8, TimeUnit.SECONDS)) {
            result.complete(action.get());
          }
        } catch (InterruptedException | RuntimeException | AssertionError e) {
          result.completeExceptionally(e);
        }
      }, "held");
      thread.setDaemon(true);
      thread.start();
    }

    T release() throws Exception {
      released.countDown();
      return result.get(8, TimeUnit.SECONDS);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(8, TimeUnit.SECONDS)).as("latch").isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private long probing() {
    Circuit.Phase<AtomicInteger> period = circuit.closedPeriod(t);
    assertThat(period).isNotNull();
    assertThat(circuit.trip(period, t, "tripped")).isTrue();
    assertThat(circuit.tryPass(t + OPEN)).isEqualTo(Circuit.PROBE);
    return t + OPEN;
  }

  @Test
  void aDueReadingHeldWhileAnotherProbesIsRefusedAndAfterTheReopeningToo() throws Exception {
    Circuit.Phase<AtomicInteger> period = circuit.closedPeriod(t);
    assertThat(circuit.trip(period, t, "tripped")).isTrue();
    long due = t + OPEN;
    Held<Long> heldDuringProbe = new Held<>(() -> circuit.tryPass(due));
    Held<Long> heldAcrossReopen = new Held<>(() -> circuit.tryPass(due + MS / 2));

    long probe = due + MS;
    assertThat(circuit.tryPass(probe)).isEqualTo(Circuit.PROBE);
    assertThat(heldDuringProbe.release()).as("a due reading while the probe runs").isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.probeFailed(probe, probe + MS, "failed")).isTrue();
    // Reopened until probe + 1 ms + OPEN; the held reading (older than the probe's) is decided at
    // the horizon, probe + 1 ms: refused for the whole open duration, not a probe.
    assertThat(heldAcrossReopen.release()).as("a reading taken before the reopening, applied after it")
        .isEqualTo(FlowLimiter.refused(OPEN));
    assertThat(heard).containsExactly("CLOSED>OPEN", "OPEN>HALF_OPEN", "HALF_OPEN>OPEN");
  }

  @Test
  void aLateTripNeverShortensTheOpenPeriod() throws Exception {
    Circuit.Phase<AtomicInteger> judged = circuit.closedPeriod(t);
    assertThat(judged).isNotNull();
    Held<Boolean> lateTrip = new Held<>(() -> circuit.trip(judged, t, "late"));
    assertThat(circuit.tryPass(t + 3 * S)).isEqualTo(Circuit.PASS); // others move on, 3 s later
    assertThat(lateTrip.release()).isTrue();
    assertThat(circuit.tryPass(t + 3 * S + OPEN - 1)).isEqualTo(FlowLimiter.refused(1));
    assertThat(circuit.tryPass(t + 3 * S + OPEN)).isEqualTo(Circuit.PROBE);
  }

  @Test
  void aJudgementOfAnEndedPeriodTripsNothing() throws Exception {
    Circuit.Phase<AtomicInteger> judged = circuit.closedPeriod(t);
    assertThat(judged).isNotNull();
    Held<Boolean> staleTrip = new Held<>(() -> circuit.trip(judged, t + OPEN + 2 * MS, "stale"));
    // Meanwhile another thread trips that same period, the probe succeeds: a new closed period.
    assertThat(circuit.trip(judged, t, "tripped")).isTrue();
    assertThat(circuit.tryPass(t + OPEN)).isEqualTo(Circuit.PROBE);
    assertThat(circuit.probeSucceeded(t + OPEN, t + OPEN + MS, "answered")).isTrue();
    assertThat(staleTrip.release()).isFalse();
    assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(heard).containsExactly("CLOSED>OPEN", "OPEN>HALF_OPEN", "HALF_OPEN>CLOSED");
  }

  @Test
  void aStaleProbesSuccessDecidesNothingEvenWhenItReadThePhaseBeforeTheNewProbe() throws Exception {
    long first = probing();
    holdNextWindow.set(true);
    // The first probe's success reads the phase (still naming it), then is held before its CAS.
    Held<Boolean> staleClose = new Held<>(() -> circuit.probeSucceeded(first, first + TIMEOUT + 2 * MS, "late"));
    CompletableFuture<Boolean> closing = CompletableFuture.supplyAsync(() -> {
      try {
        return staleClose.release();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    await(insideClose);
    long second = first + TIMEOUT; // the first probe timed out meanwhile: a new probe
    assertThat(circuit.tryPass(second)).isEqualTo(Circuit.PROBE);
    go.countDown();
    assertThat(closing.get(8, TimeUnit.SECONDS)).as("the stale probe's CAS").isFalse();
    assertThat(circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(circuit.tryPass(second + MS)).as("still one probe in flight").isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.probeFailed(second, second + 3 * MS, "failed")).isTrue();
    assertThat(circuit.retryAfter(second + 3 * MS)).isEqualTo(OPEN);
  }

  @Test
  void aReadingHeldPastAProbeTimeoutIsRefusedOnceANewProbeRuns() throws Exception {
    long first = probing();
    Held<Long> late = new Held<>(() -> circuit.tryPass(first + TIMEOUT)); // exactly at the timeout
    long second = first + TIMEOUT + MS;
    assertThat(circuit.tryPass(second)).isEqualTo(Circuit.PROBE);
    assertThat(late.release()).isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.probeFailed(first + TIMEOUT, second + MS, "not the probe")).isFalse();
    assertThat(circuit.probeSucceeded(second, second + MS, "answered")).isTrue();
  }

  @Test
  void threadsReleasedTogetherOnAnOpenCircuitAdmitOneProbe() throws Exception {
    int threads = 6;
    for (int round = 0; round < 200; round++) {
      Circuit<Object> fresh = new Circuit<>(OPEN, TIMEOUT, Object::new, (from, to, reason) -> { });
      Circuit.Phase<Object> period = fresh.closedPeriod(t);
      assertThat(period).isNotNull();
      assertThat(fresh.trip(period, t, "tripped")).isTrue();
      CyclicBarrier barrier = new CyclicBarrier(threads);
      List<CompletableFuture<Long>> verdicts = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        long reading = t + OPEN + i; // all due; different stamps
        CompletableFuture<Long> verdict = new CompletableFuture<>();
        verdicts.add(verdict);
        Thread thread = new Thread(() -> {
          try {
            barrier.await(8, TimeUnit.SECONDS);
            verdict.complete(fresh.tryPass(reading));
          } catch (Exception e) {
            verdict.completeExceptionally(e);
          }
        });
        thread.setDaemon(true);
        thread.start();
      }
      int probes = 0;
      for (CompletableFuture<Long> verdict : verdicts) {
        long v = verdict.get(8, TimeUnit.SECONDS);
        assertThat(v).isIn(Circuit.PROBE, FlowLimiter.refused(0));
        probes += v == Circuit.PROBE ? 1 : 0;
      }
      assertThat(probes).as("probes in round " + round).isEqualTo(1);
      assertThat(fresh.state()).isEqualTo(CircuitState.HALF_OPEN);
    }
  }
}
