package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiting {@code threads} rule under real threads on the real clock: 8 threads on 3 places, each
 * call waits up to 2 ms. Asserted: never more than 3 inside (counted by the calls themselves), every
 * call admitted or refused (no hang: the test's timeout), every place and queue slot given back,
 * and waits that end in admission happen (the queue is used, not just refused at once).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WaitingBulkheadRealClockTest {

  @Test
  void neverMoreThanCountInsideAndEveryPlaceGivenBack() throws Exception {
    FlowRule rule = FlowRule.builder("r").grade(FlowGrade.THREADS).count(3).maxQueueingTime(Duration.ofMillis(2))
        .maxQueueingCount(4).build();
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.of(rule)).build();
    int threads = 8;
    int calls = 400;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicLong admitted = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        try {
          start.await();
          for (int i = 0; i < calls; i++) {
            try (Entry entry = weir.entry("r")) {
              int now = inside.incrementAndGet();
              most.accumulateAndGet(now, Math::max);
              admitted.incrementAndGet();
              LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000, 300_000));
              inside.decrementAndGet();
              if (i % 7 == 0) {
                throw new IllegalStateException("a failed call gives its place back too");
              }
            } catch (BlockException blocked) {
              refused.incrementAndGet();
            } catch (IllegalStateException expected) {
              failures.incrementAndGet();
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join(50_000);
      assertThat(worker.isAlive()).isFalse();
    }
    assertThat(most.get()).as("calls inside at once").isLessThanOrEqualTo(3);
    assertThat(admitted.get() + refused.get()).isEqualTo((long) threads * calls);
    assertThat(admitted.get()).as("8 threads on 3 places with 2 ms waits: most calls get in by waiting")
        .isGreaterThan(3L * calls);
    assertThat(weir.statistics("r").activeCalls()).isZero();
    assertThat(weir.statistics("r").waitingCalls()).isZero();
    assertThat(weir.statistics("r").totalPassed()).isEqualTo(admitted.get());
  }
}
