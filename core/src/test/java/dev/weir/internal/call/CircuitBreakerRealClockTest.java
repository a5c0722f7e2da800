package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.CircuitState;
import dev.weir.Entry;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real threads on {@code System.nanoTime()}: 8 workers call a resource whose downstream alternates
 * between failing and healthy, so the breaker goes open, half-open, closed, open again; every third
 * probe is lost with its thread. Asserted on every probe admission: no other probe younger than the
 * probe timeout is in flight; after every lost probe, a new one comes within the timeout (plus
 * scheduling slack); and at the end a lost probe does not leave the breaker half-open.
 */
class CircuitBreakerRealClockTest {

  private static final long MS = 1_000_000L;
  private static final Duration OPEN = Duration.ofMillis(100);
  private static final long RUN_NANOS = 1_500 * MS;
  private static final long PHASE_NANOS = 150 * MS;
  private static final int WORKERS = 8;

  private record Probe(long start, long admittedBy, boolean lost) {
  }

  private final long begin = System.nanoTime();
  private final Map<Thread, Long> liveProbes = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Probe> probes = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();
  private final AtomicInteger probeCount = new AtomicInteger();
  private final AtomicInteger trips = new AtomicInteger();

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void atMostOneProbeInFlightAndLostProbesTimeOut() throws InterruptedException {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5)
        .minRequestAmount(5).statInterval(Duration.ofMillis(100)).openDuration(OPEN).build();
    long timeout = CircuitBreaker.probeTimeout(rule).toNanos();
    Weir weir = Weir.builder().rules(RuleSet.empty().withDegrade(List.of(rule)))
        .circuitBreakerListener((r, from, to, reason) -> {
          if (to == CircuitState.OPEN && from == CircuitState.CLOSED) {
            trips.incrementAndGet();
          }
        }).build();
    Calls.tryOnce(weir, "r");
    CircuitBreaker breaker = ((ResourceNode) weir.statistics("r")).rules.breakers[0];

    for (int i = 0; i < WORKERS; i++) {
      start(() -> work(weir, breaker, timeout));
    }
    // Every worker ends by the run's end (each call is short); replacements are joined too.
    long joinBy = begin + RUN_NANOS + 3_000 * MS;
    for (Thread thread; (thread = threads.poll()) != null; ) {
      thread.join(Math.max(1, (joinBy - System.nanoTime()) / MS));
      assertThat(thread.isAlive()).as("worker ended").isFalse();
    }

    assertThat(violations).isEmpty();
    List<Probe> all = new ArrayList<>(probes);
    all.sort((a, b) -> Long.compare(a.admittedBy, b.admittedBy));
    assertThat(trips.get()).as("the breaker cycled").isGreaterThanOrEqualTo(2);
    assertThat(all.stream().filter(Probe::lost).count()).as("lost probes").isPositive();
    for (int i = 0; i < all.size(); i++) {
      Probe probe = all.get(i);
      if (!probe.lost) {
        continue;
      }
      if (i + 1 < all.size()) {
        Probe next = all.get(i + 1);
        assertThat(next.admittedBy - probe.start).as("no new probe before the lost one timed out")
            .isGreaterThanOrEqualTo(timeout);
        assertThat(next.admittedBy - probe.start).as("a new probe soon after the timeout (calls keep coming)")
            .isLessThan(timeout + 400 * MS);
      } else {
        assertThat(probe.start).as("the last probe was lost near the end of the run")
            .isGreaterThan(begin + RUN_NANOS - timeout - 400 * MS);
      }
    }

    // Now lose one more probe with nothing else running: the breaker must not stay half-open.
    long due = System.nanoTime() + timeout + OPEN.toNanos() + 1_000 * MS;
    Thread lost = start(() -> {
      while (System.nanoTime() < due) {
        try {
          Entry entry = weir.entry("r");
          if (((Call) entry).isProbe(breaker)) {
            return; // lost: never closed
          }
          entry.recordError(new IllegalStateException("down"));
          entry.close();
        } catch (BlockException refused) {
          LockSupport.parkNanos(MS);
        }
      }
    });
    lost.join(TimeUnit.NANOSECONDS.toMillis(due - System.nanoTime()) + 1_000);
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    long lostAt = System.nanoTime();
    BlockException refused;
    while ((refused = Calls.tryOnce(weir, "r")) != null) {
      assertThat(System.nanoTime() - lostAt).as("time half-open after a lost probe").isLessThan(timeout + 1_000 * MS);
      LockSupport.parkNanos(MS);
    }
    assertThat(refused).isNull();
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
  }

  private Thread start(Runnable body) {
    Thread thread = new Thread(body, "breaker-worker");
    threads.add(thread);
    thread.start();
    return thread;
  }

  private boolean failing() {
    return ((System.nanoTime() - begin) / PHASE_NANOS) % 2 == 0;
  }

  /** Calls until the run ends; ends early, leaving its probe open, when told to lose it. */
  private void work(Weir weir, CircuitBreaker breaker, long timeout) {
    while (System.nanoTime() - begin < RUN_NANOS) {
      Entry entry;
      try {
        entry = weir.entry("r");
      } catch (BlockException refused) {
        LockSupport.parkNanos(50_000);
        continue;
      }
      if (!((Call) entry).isProbe(breaker)) {
        if (failing()) {
          entry.recordError(new IllegalStateException("down"));
        }
        entry.close();
        LockSupport.parkNanos(20_000);
        continue;
      }
      long admittedBy = System.nanoTime();
      long start = ((Call) entry).startNanos();
      // Put, then look: of two probes admitted together, at least the second to look sees the other.
      liveProbes.put(Thread.currentThread(), start);
      for (Map.Entry<Thread, Long> other : liveProbes.entrySet()) {
        if (other.getKey() != Thread.currentThread() && admittedBy - other.getValue() < timeout) {
          violations.add("probe admitted at " + (admittedBy - begin) / MS + " ms while " + other.getKey().getName()
              + "'s probe, started " + (admittedBy - other.getValue()) / MS + " ms before, was in flight");
        }
      }
      boolean lose = probeCount.incrementAndGet() % 3 == 0;
      probes.add(new Probe(start, admittedBy, lose));
      if (lose) {
        liveProbes.remove(Thread.currentThread()); // lost: no longer anyone's call in flight
        start(() -> work(weir, breaker, timeout)); // a replacement; this thread dies with its probe
        return;
      }
      LockSupport.parkNanos(MS); // the probe's work: long enough for overlaps to show
      if (failing()) {
        entry.recordError(new IllegalStateException("down"));
      }
      liveProbes.remove(Thread.currentThread());
      entry.close();
    }
  }
}
