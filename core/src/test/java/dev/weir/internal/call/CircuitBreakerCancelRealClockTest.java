package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.RealTimeRun;
import dev.weir.Weir;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real threads on {@code System.nanoTime()}, asynchronous calls: 6 workers open
 * {@linkplain Weir#asyncEntry asynchronous entries}, and a probe is completed by another thread a
 * moment later, as a future's work or a subscription's cancel would. The downstream cycles through
 * three phases: failing (every call and probe fails), cancelling (every probe is cancelled by its
 * caller), healthy. Asserted: never two probes in flight; every probe is decided exactly once, by its
 * own outcome or by the probe timeout, and a cancelled probe only ever hands the probe back (never a
 * close, never a reopening for a whole period), so the next call probes at once: no call that began
 * after a cancel returned, and ended before any later probe's call began, was refused (a whole open
 * period per cancelled probe would refuse every call of that period). Each call is known by the
 * interval of {@code System.nanoTime()} readings around it, which holds the engine's reading. The
 * run lasts three cycles of the phases and until the breaker cycled, a probe was handed back and one
 * closed it ({@link RealTimeRun}).
 *
 * <p>The engine reads the ticker on every call here ({@code clockResolution(ZERO)}): the test brackets
 * each decision with its own readings of the real clock, which a coarse engine time trails. The
 * same bounds on the default coarse clock are asserted over the engine's own readings in
 * {@code CoarseClockBoundsTest}.
 */
class CircuitBreakerCancelRealClockTest {

  private static final long MS = 1_000_000L;
  private static final Duration OPEN = Duration.ofMillis(200);
  private static final long PHASE_NANOS = 250 * MS;
  private static final int CYCLES = 3;
  private static final Duration RUN = Duration.ofNanos(3 * PHASE_NANOS * CYCLES);
  private static final int WORKERS = 6;

  private enum Outcome { FAIL, CANCEL, SUCCESS }

  private final long begin = System.nanoTime();
  private final RealTimeRun run = new RealTimeRun();
  /** Every probe as {stamp, when its call began}. */
  private final ConcurrentLinkedQueue<long[]> probes = new ConcurrentLinkedQueue<>();
  /** Every cancelled probe as {stamp, when its cancel returned}. */
  private final ConcurrentLinkedQueue<long[]> cancelled = new ConcurrentLinkedQueue<>();
  /** Every refused call as {began, ended}. */
  private final ConcurrentLinkedQueue<long[]> refusals = new ConcurrentLinkedQueue<>();
  private final Map<Long, Long> liveProbes = new ConcurrentHashMap<>();
  private final AtomicLong probeIds = new AtomicLong();
  private final ConcurrentLinkedQueue<Outcome> ended = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> reasons = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

  private Outcome phase() {
    return Outcome.values()[(int) (((System.nanoTime() - begin) / PHASE_NANOS) % 3)];
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void cancelledProbesAreHandedBackNeverDecideAndNeverMakeTwoProbes() throws InterruptedException {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5)
        .minRequestAmount(5).statInterval(Duration.ofMillis(100)).openDuration(OPEN).build();
    long timeout = CircuitBreaker.probeTimeout(rule).toNanos();
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.empty().withDegrade(List.of(rule)))
        .circuitBreakerListener((r, from, to, reason) -> reasons.add(from + "->" + to + ": " + reason)).build();
    Calls.tryOnce(weir, "r");
    CircuitBreaker breaker = ((ResourceNode) weir.statistics("r")).rules.breakers[0];
    ScheduledExecutorService completers = Executors.newScheduledThreadPool(2);
    Thread[] workers = new Thread[WORKERS];
    try {
      for (int i = 0; i < WORKERS; i++) {
        workers[i] = new Thread(() -> work(weir, breaker, timeout, completers), "cancel-worker-" + i);
        workers[i].start();
      }
      run.endWhen(RUN, () -> count(r -> r.startsWith("CLOSED->OPEN")) >= 2
          && count(r -> r.equals("HALF_OPEN->OPEN: " + CircuitBreaker.PROBE_CANCELLED)) >= 1
          && count(r -> r.equals("HALF_OPEN->CLOSED: probe succeeded")) >= 1);
      for (Thread worker : workers) {
        worker.join(10_000);
        assertThat(worker.isAlive()).as("worker ended").isFalse();
      }
    } finally {
      completers.shutdown();
      assertThat(completers.awaitTermination(5, TimeUnit.SECONDS)).as("every probe ended").isTrue();
    }

    assertThat(violations).isEmpty();
    long successes = ended.stream().filter(o -> o == Outcome.SUCCESS).count();
    long failures = ended.stream().filter(o -> o == Outcome.FAIL).count();
    long cancels = ended.stream().filter(o -> o == Outcome.CANCEL).count();
    long closedBy = reasons.stream().filter(r -> r.equals("HALF_OPEN->CLOSED: probe succeeded")).count();
    long reopenedBy = reasons.stream().filter(r -> r.equals("HALF_OPEN->OPEN: probe failed")).count();
    long handedBack = reasons.stream().filter(r -> r.equals("HALF_OPEN->OPEN: " + CircuitBreaker.PROBE_CANCELLED)).count();
    long timedOut = reasons.stream().filter(r -> r.startsWith("HALF_OPEN->OPEN: probe did not complete")).count();
    assertThat(closedBy).as("closes: by succeeded probes only").isLessThanOrEqualTo(successes).isPositive();
    assertThat(reopenedBy).as("reopenings: by failed probes only").isLessThanOrEqualTo(failures);
    assertThat(handedBack).as("hand-backs: by cancelled probes only").isLessThanOrEqualTo(cancels);
    assertThat(closedBy + reopenedBy + handedBack + timedOut).as("every probe decided exactly once")
        .isEqualTo(ended.size());
    assertThat(handedBack).as("probes handed back").isPositive();
    assertThat(reasons.stream().filter(r -> r.startsWith("CLOSED->OPEN")).count()).as("the breaker cycled")
        .isGreaterThanOrEqualTo(2);
    // After a cancel returned, the next call probes: a refused call must have met a later probe.
    List<long[]> probed = new ArrayList<>(probes);
    List<long[]> refused = new ArrayList<>(refusals);
    for (long[] cancel : cancelled) {
      long laterBegan = probed.stream().filter(probe -> probe[0] - cancel[0] > 0).mapToLong(probe -> probe[1])
          .min().orElse(Long.MAX_VALUE);
      assertThat(refused).as("calls refused after the cancel of the probe of %d ms returned, before a later probe's"
          + " call began", (cancel[0] - begin) / MS)
          .noneMatch(call -> call[0] - cancel[1] >= 0 && call[1] - laterBegan < 0);
    }
  }

  private long count(java.util.function.Predicate<String> reason) {
    return reasons.stream().filter(reason).count();
  }

  /** Calls until the run ends; a probe is ended by a completer thread 0.2 to 1.5 ms later. */
  private void work(Weir weir, CircuitBreaker breaker, long timeout, ScheduledExecutorService completers) {
    while (run.going()) {
      Entry entry;
      long began = System.nanoTime();
      try {
        entry = weir.asyncEntry("r", EntryType.OUT, 1);
      } catch (BlockException refused) {
        refusals.add(new long[] {began, System.nanoTime()});
        LockSupport.parkNanos(50_000);
        continue;
      }
      Outcome outcome = phase();
      if (!((Call) entry).isProbe(breaker)) {
        if (outcome == Outcome.FAIL) {
          entry.recordError(new IllegalStateException("down"));
        }
        entry.close();
        LockSupport.parkNanos(20_000);
        continue;
      }
      long admittedBy = System.nanoTime();
      long id = probeIds.incrementAndGet();
      long stamp = ((Call) entry).startNanos();
      probes.add(new long[] {stamp, began});
      // Put, then look: of two probes admitted together, at least the second to look sees the other.
      liveProbes.put(id, stamp);
      for (Map.Entry<Long, Long> other : liveProbes.entrySet()) {
        if (other.getKey() != id && admittedBy - other.getValue() < timeout) {
          violations.add("probe admitted at " + (admittedBy - begin) / MS + " ms while another, started "
              + (admittedBy - other.getValue()) / MS + " ms before, was in flight");
        }
      }
      completers.schedule(() -> {
        liveProbes.remove(id); // before it ends: from here on it is nobody's call in flight
        switch (outcome) {
          case FAIL -> {
            entry.recordError(new IllegalStateException("down"));
            entry.close();
          }
          case CANCEL -> {
            entry.cancel();
            cancelled.add(new long[] {stamp, System.nanoTime()});
          }
          default -> entry.close();
        }
        ended.add(outcome);
      }, ThreadLocalRandom.current().nextLong(200, 1_500), TimeUnit.MICROSECONDS);
    }
  }
}
