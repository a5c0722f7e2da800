package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.CircuitState;
import dev.weir.Entry;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real threads on {@code System.nanoTime()}: 8 workers call a resource whose downstream alternates
 * between failing and healthy, so the breaker goes open, half-open, closed, open again; every third
 * probe is lost with its thread. Asserted on every probe admission: no other probe younger than the
 * probe timeout is in flight. After every lost probe: no new probe before the probe timeout, and no
 * call refused once it has passed: a call that began after the timeout and ended before any later
 * probe's call began must have been that probe. And at the end a lost probe does not leave the
 * breaker half-open. Each call is known by the interval of {@code System.nanoTime()} readings
 * around it, which holds the engine's reading, so none of this depends on how late the machine ran
 * a thread. The run lasts 1.5 s and until the breaker cycled and probes were lost ({@link RealTimeRun}).
 *
 * <p>The engine reads the ticker on every call here ({@code clockResolution(ZERO)}): the test brackets
 * each decision with its own readings of the real clock, which a coarse engine time trails. The
 * same bounds on the default coarse clock are asserted over the engine's own readings in
 * {@code CoarseClockBoundsTest}.
 */
class CircuitBreakerRealClockTest {

  private static final long MS = 1_000_000L;
  private static final Duration OPEN = Duration.ofMillis(100);
  private static final Duration RUN = Duration.ofMillis(1_500);
  private static final long PHASE_NANOS = 150 * MS;
  private static final int WORKERS = 8;

  /** A probe: its engine reading (its stamp), when its call began, and when it was admitted by. */
  private record Probe(long start, long began, long admittedBy, boolean lost) {
  }

  private final long begin = System.nanoTime();
  private final RealTimeRun run = new RealTimeRun();
  private final Map<Thread, Long> liveProbes = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Probe> probes = new ConcurrentLinkedQueue<>();
  /** Every refused call as {began, ended}. */
  private final ConcurrentLinkedQueue<long[]> refusals = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();
  private final AtomicInteger probeCount = new AtomicInteger();
  private final AtomicInteger trips = new AtomicInteger();

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void atMostOneProbeInFlightAndLostProbesTimeOut() throws InterruptedException {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5)
        .minRequestAmount(5).statInterval(Duration.ofMillis(100)).openDuration(OPEN).build();
    long timeout = CircuitBreaker.probeTimeout(rule).toNanos();
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.empty().withDegrade(List.of(rule)))
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
    run.endWhen(RUN, () -> trips.get() >= 2 && probes.stream().filter(Probe::lost).count() >= 2);
    // Every worker ends soon after the run (each call is short); replacements are joined too.
    for (Thread thread; (thread = threads.poll()) != null; ) {
      thread.join(10_000);
      assertThat(thread.isAlive()).as("worker ended").isFalse();
    }

    assertThat(violations).isEmpty();
    List<Probe> all = new ArrayList<>(probes);
    all.sort((a, b) -> Long.compare(a.start, b.start)); // admission order: a probe's stamp exceeds every earlier one
    assertThat(trips.get()).as("the breaker cycled").isGreaterThanOrEqualTo(2);
    assertThat(all.stream().filter(Probe::lost).count()).as("lost probes").isPositive();
    List<long[]> refused = new ArrayList<>(refusals);
    for (int i = 0; i < all.size(); i++) {
      Probe probe = all.get(i);
      if (!probe.lost) {
        continue;
      }
      long laterBegan = Long.MAX_VALUE; // the earliest any later probe's call began
      for (int k = i + 1; k < all.size(); k++) {
        laterBegan = Math.min(laterBegan, all.get(k).began);
      }
      if (i + 1 < all.size()) {
        assertThat(all.get(i + 1).admittedBy - probe.start).as("no new probe before the lost one timed out")
            .isGreaterThanOrEqualTo(timeout);
      }
      long due = probe.start + timeout;
      long until = laterBegan;
      assertThat(refused).as("calls refused after the lost probe of %d ms timed out, before a later probe's call",
          (probe.start - begin) / MS).noneMatch(call -> call[0] - due >= 0 && call[1] - until < 0);
    }

    // Now lose one more probe with nothing else running: the breaker must not stay half-open.
    java.util.concurrent.atomic.AtomicLong lostStart = new java.util.concurrent.atomic.AtomicLong();
    Thread lost = start(() -> {
      while (true) {
        try {
          Entry entry = weir.entry("r");
          if (((Call) entry).isProbe(breaker)) {
            lostStart.set(((Call) entry).startNanos());
            return; // lost: never closed
          }
          entry.recordError(new IllegalStateException("down"));
          entry.close();
        } catch (BlockException refusedCall) {
          LockSupport.parkNanos(MS);
        }
      }
    });
    lost.join(); // bounded by the test's timeout: the breaker opens on errors and then lets a probe through
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    long due = lostStart.get() + timeout;
    while (true) {
      long began = System.nanoTime();
      if (Calls.tryOnce(weir, "r") == null) {
        break;
      }
      assertThat(began - due).as("a call refused though it began after the lost probe timed out").isNegative();
      LockSupport.parkNanos(MS);
    }
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
    while (run.going()) {
      Entry entry;
      long began = System.nanoTime();
      try {
        entry = weir.entry("r");
      } catch (BlockException refused) {
        refusals.add(new long[] {began, System.nanoTime()});
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
      probes.add(new Probe(start, began, admittedBy, lose));
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
