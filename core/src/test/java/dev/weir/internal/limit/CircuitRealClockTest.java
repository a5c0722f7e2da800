package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.RealTimeRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Circuit} under real threads on {@code System.nanoTime()}: many threads keep trying an
 * open circuit, each with a reading taken just before (so readings arrive late and out of order).
 * Every admitted probe is recorded with its reading and the time it was admitted by; asserted: at
 * most one probe in flight, none before its open period ends, and after a lost probe none before
 * the probe timeout. A run lasts {@link #RUN} and then until the circuit cycled enough times for
 * these to be tested ({@link RealTimeRun}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CircuitRealClockTest {

  private static final long MS = 1_000_000L;
  private static final long OPEN = 10 * MS;
  private static final long RUN = 1_200 * MS;
  private static final int THREADS = 8;

  private record Probe(long stamp, long admittedBy, long openedAt) {
  }

  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Probe> probes = new ConcurrentLinkedQueue<>();

  /** Runs {@code work} on every thread while {@code run} goes on, for {@link #RUN} and until {@code probes} were recorded. */
  private void run(RealTimeRun run, int probes, Runnable work) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      Thread thread = new Thread(work, "circuit-worker-" + i);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    run.endWhen(Duration.ofNanos(RUN), () -> this.probes.size() >= probes);
    for (Thread thread : threads) {
      thread.join(10_000);
      assertThat(thread.isAlive()).as("worker ended").isFalse();
    }
  }

  /**
   * Probes complete (fail or succeed at random); a closed period is tripped about 1 ms after it
   * began by the one thread that claims it. The probe timeout is far above any probe's run, so each
   * open period has one probe. {@code openedAt} is written by the one thread allowed to open before
   * its CAS, so a probe admitted against that opening sees it (or a later one: never an earlier).
   */
  @Test
  void manyThreadsOnAnOpenCircuitAdmitOneProbePerOpenPeriodAndNoneEarly() throws InterruptedException {
    Circuit<AtomicLong> circuit = new Circuit<>(OPEN, 60_000 * MS, () -> new AtomicLong(Circuit.NONE),
        (from, to, reason) -> { });
    AtomicLong openedAt = new AtomicLong(Circuit.NONE);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger opens = new AtomicInteger();
    long begin = System.nanoTime();
    RealTimeRun run = new RealTimeRun();
    run(run, 11, () -> {
      while (run.going()) {
        long reading = System.nanoTime();
        long verdict = circuit.tryPass(reading);
        if (verdict == Circuit.PASS) {
          Circuit.Phase<AtomicLong> period = circuit.closedPeriod(reading);
          // The first claimant of a period at least 1 ms old trips it (the first period at once).
          if (period != null && (period.at == Circuit.NONE || reading - period.at >= MS)
              && period.window().compareAndSet(Circuit.NONE, reading)) {
            openedAt.set(reading);
            if (!circuit.trip(period, reading, "tripped")) {
              violations.add("the claimant of a closed period could not trip it");
            }
            opens.incrementAndGet();
          }
        } else if (verdict == Circuit.PROBE) {
          long admittedBy = System.nanoTime();
          long opened = openedAt.get();
          if (inFlight.incrementAndGet() != 1) {
            violations.add("two probes in flight at " + (admittedBy - begin) / 1_000 + " us");
          }
          probes.add(new Probe(reading, admittedBy, opened));
          LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000, 300_000)); // the probe's call
          inFlight.decrementAndGet();
          long end = System.nanoTime();
          boolean decided;
          if (ThreadLocalRandom.current().nextBoolean()) {
            openedAt.set(end);
            decided = circuit.probeFailed(reading, end, "failed");
            opens.incrementAndGet();
          } else {
            decided = circuit.probeSucceeded(reading, end, "answered");
          }
          if (!decided) {
            violations.add("a probe's outcome decided nothing, with no probe timeout");
          }
        } else {
          LockSupport.parkNanos(20_000); // refused
        }
      }
    });
    assertThat(violations).isEmpty();
    List<Probe> all = new ArrayList<>(probes);
    assertThat(all).as("the circuit cycled").hasSizeGreaterThan(10);
    for (Probe probe : all) {
      assertThat(probe.admittedBy - probe.openedAt).as("probe admitted after its open period").isGreaterThanOrEqualTo(OPEN);
    }
    assertThat(all.stream().map(Probe::stamp).distinct().count()).as("unique stamps").isEqualTo(all.size());
    assertThat(all.size()).as("one probe per open period, the last may have had none")
        .isBetween(opens.get() - 1, opens.get());
  }

  /**
   * Every probe is lost (its thread never reports it). Each probe times out and the next call
   * probes: consecutive probes (in stamp order, which is admission order: a probe's reading must
   * exceed every earlier stamp) are at least the probe timeout apart.
   */
  @Test
  void lostProbesAreReplacedOnlyAfterTheProbeTimeout() throws InterruptedException {
    long probeTimeout = 20 * MS;
    AtomicInteger timeouts = new AtomicInteger();
    Circuit<Object> circuit = new Circuit<>(OPEN, probeTimeout, Object::new, (from, to, reason) -> {
      if (from == CircuitState.HALF_OPEN && to == CircuitState.OPEN) {
        timeouts.incrementAndGet();
      }
    });
    long trippedAt = System.nanoTime();
    Circuit.Phase<Object> period = circuit.closedPeriod(trippedAt);
    assertThat(period).isNotNull();
    assertThat(circuit.trip(period, trippedAt, "tripped")).isTrue();
    RealTimeRun run = new RealTimeRun();
    run(run, 6, () -> {
      while (run.going()) {
        long reading = System.nanoTime();
        long verdict = circuit.tryPass(reading);
        if (verdict == Circuit.PROBE) {
          probes.add(new Probe(reading, System.nanoTime(), trippedAt)); // and never reported
        } else if (verdict != Circuit.PASS) {
          LockSupport.parkNanos(20_000);
        } else {
          violations.add("a call passed a circuit that never closes");
        }
      }
    });
    assertThat(violations).isEmpty();
    List<Probe> all = new ArrayList<>(probes);
    all.sort(Comparator.comparingLong(Probe::stamp));
    assertThat(all).as("probes").hasSizeGreaterThan(5);
    assertThat(all.get(0).admittedBy - trippedAt).as("first probe after the open period").isGreaterThanOrEqualTo(OPEN);
    for (int i = 1; i < all.size(); i++) {
      assertThat(all.get(i).admittedBy - all.get(i - 1).stamp).as("probe " + i + " after the previous one's timeout")
          .isGreaterThanOrEqualTo(probeTimeout);
      assertThat(all.get(i).stamp).isGreaterThan(all.get(i - 1).stamp);
    }
    assertThat(timeouts.get()).isEqualTo(all.size() - 1);
    assertThat(circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
  }
}
