package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A few end-to-end checks on the real clock and real threads. Bounds are one-sided where the
 * machine's load can only push one way (a busy machine makes calls late, never early), so they hold
 * on a loaded 2-core machine.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RealTimeTest {

  private static final long MILLIS = 1_000_000L;

  @Test
  void rateLimitHoldsOnTheRealClock() {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("r", 50))).build();
    List<Long> admitted = new ArrayList<>();
    long start = System.nanoTime();
    while (System.nanoTime() - start < 1_500 * MILLIS) {
      if (Calls.tryOnce(weir, "r") == null) {
        admitted.add(System.nanoTime() - start);
      }
    }
    // Within 1.5 s the window releases at most one more second's worth (its documented worst case).
    assertThat(admitted.size()).isBetween(50, 100);
    // Any real span shorter than the window less one 100 ms bucket lies within ten consecutive
    // buckets, which hold at most the count. 850 ms leaves 50 ms for scheduling delay.
    for (int i = 0; i < admitted.size(); i++) {
      long from = admitted.get(i);
      long inSpan = admitted.stream().filter(t -> t >= from && t < from + 850 * MILLIS).count();
      assertThat(inSpan).as("admissions in the 850 ms from admission %d", i).isLessThanOrEqualTo(50);
    }
  }

  @Test
  void exactModeNeverLetsMoreThanCountIntoAnyRealSecond() {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.builder("r").count(20).exact(true).build())).build();
    List<Long> admitted = new ArrayList<>();
    long start = System.nanoTime();
    while (System.nanoTime() - start < 2_200 * MILLIS) {
      try (Entry entry = weir.entry("r")) {
        admitted.add(System.nanoTime());
      } catch (BlockException refused) {
        Thread.onSpinWait();
      }
    }
    // Timestamps are taken after admission; the engine's own are earlier, so a gap measured here
    // can only look shorter than the engine's by scheduling delay. Allow 50 ms for that.
    for (int i = 20; i < admitted.size(); i++) {
      assertThat(admitted.get(i) - admitted.get(i - 20)).isGreaterThan(950 * MILLIS);
    }
    assertThat(admitted.size()).isBetween(41, 60);
  }

  @Test
  void queueSpacesCallsOnTheRealClock() {
    FlowRule rule = FlowRule.builder("r").count(20).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofSeconds(2)).build();
    Weir weir = Weir.builder().rules(RuleSet.of(rule)).build();
    long start = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      weir.entry("r").close();
    }
    long elapsed = System.nanoTime() - start;
    // Nine gaps of 50 ms: never sooner; a busy machine may make it later.
    assertThat(elapsed).isGreaterThanOrEqualTo(440 * MILLIS).isLessThan(5_000 * MILLIS);
  }

  @Test
  void concurrencyLimitHoldsAcrossRealThreads() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.threads("r", 3))).build();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(8);
    for (int t = 0; t < 8; t++) {
      new Thread(() -> {
        for (int i = 0; i < 200; i++) {
          try (Entry entry = weir.entry("r")) {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            LockSupport.parkNanos(100_000);
            inside.decrementAndGet();
          } catch (BlockException e) {
            refused.incrementAndGet();
          }
        }
        done.countDown();
      }).start();
    }
    assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(most.get()).isLessThanOrEqualTo(3);
    assertThat(refused.get()).isPositive();
    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.totalPassed() + stats.totalBlocked()).isEqualTo(1_600);
    assertThat(stats.activeCalls()).isZero();
  }

  @Test
  void openCircuitLetsAProbeThroughAfterItsOpenDuration() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(0)
        .minRequestAmount(1).openDuration(Duration.ofMillis(200)).build();
    Weir weir = Weir.builder().rules(RuleSet.empty().withDegrade(List.of(rule))).build();
    long opened;
    try (Entry entry = weir.entry("r")) {
      entry.recordError(new IllegalStateException("down"));
      opened = System.nanoTime(); // the breaker counts from this call's completion, a little later
    }
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(DegradeException.class);
    while (Calls.tryOnce(weir, "r") != null) {
      assertThat(System.nanoTime() - opened).isLessThan(5_000 * MILLIS);
      Thread.onSpinWait();
    }
    assertThat(System.nanoTime() - opened).isGreaterThanOrEqualTo(200 * MILLIS);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }
}
