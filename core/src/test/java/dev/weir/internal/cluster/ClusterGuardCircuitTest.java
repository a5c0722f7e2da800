package dev.weir.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import dev.weir.internal.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClusterGuard} on the shared {@link Circuit}, driven directly with a scripted store and a
 * driven ticker: one probe per open period however many callers race for it, probes stamped (a lost
 * probe times out and its late answer decides nothing), an interrupted probe handed back, and
 * failures counted in the closed period their call started in.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ClusterGuardCircuitTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final EngineClock clock = new EngineClock(ticker, ticker);
  private final ScriptedClusterStore store = new ScriptedClusterStore();
  private final ClusterCounter counter = store.counter(new ClusterLimit("r", "all", 1_000_000, Duration.ofSeconds(1)));
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
    store.hanging.forEach(future -> future.complete(new ClusterDecision(true, 0, 0)));
  }

  private static ClusterOptions options(Duration timeout, int failureThreshold) {
    return new ClusterOptions(timeout, ClusterFallback.DENY, failureThreshold, Duration.ofSeconds(1), 64);
  }

  private @Nullable ClusterDecision decide(ClusterGuard guard) {
    return guard.decide(counter, 1, clock.read());
  }

  private Future<@Nullable ClusterDecision> decideAsync(ClusterGuard guard) {
    long now = clock.read();
    return pool.submit(() -> guard.decide(counter, 1, now));
  }

  private static void until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited for a condition").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void ofManyCallersRacingForAnOpenGuardExactlyOneReachesTheStore() throws Exception {
    ClusterGuard guard = new ClusterGuard(store, options(Duration.ofSeconds(5), 1), clock);
    int threads = 8;
    for (int round = 1; round <= 10; round++) {
      store.mode = Mode.FAIL;
      int before = store.acquires.get();
      assertThat(decide(guard)).isNull(); // one failure opens it (threshold 1)
      assertThat(guard.breakerState()).isEqualTo(CircuitState.OPEN);
      ticker.advance(Duration.ofSeconds(1));
      store.mode = Mode.HANG; // the probe stays unanswered while the others arrive
      CyclicBarrier barrier = new CyclicBarrier(threads);
      long now = clock.read();
      List<Future<@Nullable ClusterDecision>> calls = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        calls.add(pool.submit(() -> {
          barrier.await(8, TimeUnit.SECONDS);
          return guard.decide(counter, 1, now);
        }));
      }
      until(() -> store.hanging.stream().anyMatch(future -> !future.isDone()));
      until(() -> calls.stream().filter(Future::isDone).count() == threads - 1);
      assertThat(store.acquires.get() - before).as("round " + round + ": the failure and one probe").isEqualTo(2);
      assertThat(guard.fallbacks(FallbackReason.BREAKER_OPEN)).isEqualTo(round * (threads - 1L));
      assertThat(guard.breakerState()).isEqualTo(CircuitState.HALF_OPEN);
      store.hanging.forEach(future -> future.complete(new ClusterDecision(true, 5, 0))); // the probe answers
      for (Future<@Nullable ClusterDecision> call : calls) {
        call.get(8, TimeUnit.SECONDS);
      }
      assertThat(guard.breakerState()).isEqualTo(CircuitState.CLOSED);
      store.hanging.clear();
    }
    assertThat(guard.admitted.sum()).isEqualTo(10);
  }

  @Test
  void aLostProbeTimesOutAfterOpenDurationPlusTimeoutAndItsLateAnswerDecidesNothing() throws Exception {
    Duration timeout = Duration.ofSeconds(5); // of the caller's wait, on the real clock
    ClusterOptions options = options(timeout, 1);
    assertThat(ClusterGuard.probeTimeoutNanos(options)).isEqualTo(Duration.ofSeconds(6).toNanos());
    ClusterGuard guard = new ClusterGuard(store, options, clock);
    store.mode = Mode.FAIL;
    decide(guard);
    ticker.advance(Duration.ofSeconds(1));
    store.mode = Mode.HANG;
    Future<@Nullable ClusterDecision> lost = decideAsync(guard); // the probe; its store never answers in time
    until(() -> store.hanging.size() == 1);

    ticker.advance(Duration.ofSeconds(6).minusNanos(1));
    assertThat(decide(guard)).as("before the probe timeout").isNull();
    assertThat(store.acquires).hasValue(2);
    ticker.advanceNanos(1);
    Future<@Nullable ClusterDecision> second = decideAsync(guard); // the probe timed out: a new probe
    until(() -> store.hanging.size() == 2);
    assertThat(store.acquires).hasValue(3);

    List<CompletableFuture<ClusterDecision>> hanging = new ArrayList<>(store.hanging);
    hanging.get(0).complete(new ClusterDecision(true, 5, 0)); // the lost probe's answer, late
    assertThat(lost.get(8, TimeUnit.SECONDS)).as("its caller still gets the answer").isNotNull();
    assertThat(guard.breakerState()).as("the late answer closed nothing").isEqualTo(CircuitState.HALF_OPEN);
    assertThat(decide(guard)).as("the second probe is still the only one").isNull();

    hanging.get(1).completeExceptionally(new IllegalStateException("store down"));
    assertThat(second.get(8, TimeUnit.SECONDS)).isNull();
    assertThat(guard.breakerState()).as("the second probe's failure reopens").isEqualTo(CircuitState.OPEN);
    assertThat(store.acquires).hasValue(3);
  }

  @Test
  void anInterruptedProbeIsHandedBackAndTheNextCallProbesAtTheSameReading() {
    ClusterGuard guard = new ClusterGuard(store, options(Duration.ofSeconds(5), 1), clock);
    store.mode = Mode.FAIL;
    decide(guard);
    ticker.advance(Duration.ofSeconds(1));
    long now = clock.read();
    store.mode = Mode.HANG;
    Thread.currentThread().interrupt();
    try {
      assertThat(guard.decide(counter, 1, now)).isNull();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(guard.breakerState()).isEqualTo(CircuitState.OPEN);
    assertThat(guard.fallbacks(FallbackReason.ERROR)).as("the failure that opened it, and the interrupted probe").isEqualTo(2);
    store.mode = Mode.COUNT;
    assertThat(guard.decide(counter, 1, now)).as("the next call probes, at the same reading").isNotNull();
    assertThat(guard.breakerState()).isEqualTo(CircuitState.CLOSED);
    assertThat(store.acquires).hasValue(3);
  }

  @Test
  void aFailureOfACallFromBeforeTheOpeningDoesNotCountInTheNextClosedPeriod() throws Exception {
    ClusterGuard guard = new ClusterGuard(store, options(Duration.ofSeconds(2), 2), clock);
    store.mode = Mode.HANG;
    Future<@Nullable ClusterDecision> straggler = decideAsync(guard); // started in the first closed period
    until(() -> store.hanging.size() == 1);
    store.mode = Mode.FAIL;
    decide(guard);
    decide(guard);
    assertThat(guard.breakerState()).isEqualTo(CircuitState.OPEN);
    ticker.advance(Duration.ofSeconds(1));
    store.mode = Mode.COUNT;
    assertThat(decide(guard)).isNotNull(); // the probe closes: a new period, from now
    assertThat(guard.breakerState()).isEqualTo(CircuitState.CLOSED);
    assertThat(straggler.isDone()).as("the straggler still waits (2 s deadline)").isFalse();

    assertThat(straggler.get(8, TimeUnit.SECONDS)).isNull(); // its deadline passes: a failure of the old period
    assertThat(guard.fallbacks(FallbackReason.TIMEOUT)).isEqualTo(1);
    store.mode = Mode.FAIL;
    decide(guard);
    assertThat(guard.breakerState()).as("one failure of this period, of 2").isEqualTo(CircuitState.CLOSED);
    decide(guard);
    assertThat(guard.breakerState()).isEqualTo(CircuitState.OPEN);
  }
}
