package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import java.time.Duration;
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
 * close, never a reopening for a whole period), so the next call probes at once: many probes per
 * cancelling phase, where a whole open period per probe would allow at most two.
 */
class CircuitBreakerCancelRealClockTest {

  private static final long MS = 1_000_000L;
  private static final Duration OPEN = Duration.ofMillis(200);
  private static final long PHASE_NANOS = 250 * MS;
  private static final int CYCLES = 3;
  private static final long RUN_NANOS = 3 * PHASE_NANOS * CYCLES;
  private static final int WORKERS = 6;

  private enum Outcome { FAIL, CANCEL, SUCCESS }

  private final long begin = System.nanoTime();
  private final Map<Long, Long> liveProbes = new ConcurrentHashMap<>();
  private final AtomicLong probeIds = new AtomicLong();
  private final ConcurrentLinkedQueue<Outcome> ended = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> reasons = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

  private Outcome phase() {
    return Outcome.values()[(int) (((System.nanoTime() - begin) / PHASE_NANOS) % 3)];
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void cancelledProbesAreHandedBackNeverDecideAndNeverMakeTwoProbes() throws InterruptedException {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5)
        .minRequestAmount(5).statInterval(Duration.ofMillis(100)).openDuration(OPEN).build();
    long timeout = CircuitBreaker.probeTimeout(rule).toNanos();
    Weir weir = Weir.builder().rules(RuleSet.empty().withDegrade(List.of(rule)))
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
      for (Thread worker : workers) {
        worker.join(TimeUnit.NANOSECONDS.toMillis(RUN_NANOS) + 5_000);
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
    assertThat(cancels).as("cancelled probes: more than an open period each would allow (2 per phase)")
        .isGreaterThan(4L * CYCLES);
    assertThat(reasons.stream().filter(r -> r.startsWith("CLOSED->OPEN")).count()).as("the breaker cycled")
        .isGreaterThanOrEqualTo(2);
  }

  /** Calls until the run ends; a probe is ended by a completer thread 0.2 to 1.5 ms later. */
  private void work(Weir weir, CircuitBreaker breaker, long timeout, ScheduledExecutorService completers) {
    while (System.nanoTime() - begin < RUN_NANOS) {
      Entry entry;
      try {
        entry = weir.asyncEntry("r", EntryType.OUT, 1);
      } catch (BlockException refused) {
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
      // Put, then look: of two probes admitted together, at least the second to look sees the other.
      liveProbes.put(id, ((Call) entry).startNanos());
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
          case CANCEL -> entry.cancel();
          default -> entry.close();
        }
        ended.add(outcome);
      }, ThreadLocalRandom.current().nextLong(200, 1_500), TimeUnit.MICROSECONDS);
    }
  }
}
