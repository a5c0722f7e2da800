package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real threads on {@code System.nanoTime()} for 2 s and until the traffic was more than twice the
 * rule's count ({@link RealTimeRun}): three workers call one engine with a
 * rule in force and, right after each call, another engine with the same rule in shadow mode, at
 * several times the rule's rate. The shadow engine refuses nothing and admits every call; what it
 * counts as refused differs from what the real engine refused by at most the rule's {@code count}
 * (the bound of docs/shadow-mode.md: both limiters admit {@code count} per interval under overload, and their
 * windows and the two calls of an iteration are microseconds apart, so they can differ only in the
 * admissions of one interval), and both counts are large. The real engine admits at most its count
 * in any ten consecutive buckets of its window (100 ms each), so at most its count for every ten of
 * the buckets the run touched.
 *
 * <p>The engine reads the ticker on every call here ({@code clockResolution(ZERO)}): the test brackets
 * each decision with its own readings of the real clock, which a coarse engine time trails. The
 * same bounds on the default coarse clock are asserted over the engine's own readings in
 * {@code CoarseClockBoundsTest}.
 */
class ShadowRealClockTest {

  private static final int COUNT = 400;
  private static final int WORKERS = 3;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void shadowCountsWhatTheRealRuleRefusesWithinOneIntervalsCount() throws InterruptedException {
    FlowRule rule = FlowRule.qps("r", COUNT);
    Weir real = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.of(rule)).build();
    Weir shadow = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.of(rule.withShadow(true))).build();
    AtomicLong attempts = new AtomicLong();
    RealTimeRun run = new RealTimeRun();
    long started = System.nanoTime();
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      Thread worker = new Thread(() -> {
        while (run.going()) {
          Calls.tryOnce(real, "r");
          Calls.tryOnce(shadow, "r");
          attempts.incrementAndGet();
          LockSupport.parkNanos(100_000);
        }
      }, "shadow-worker-" + w);
      workers.add(worker);
      worker.start();
    }
    run.endWhen(Duration.ofSeconds(2), () -> real.statistics("r").totalBlocked(RuleKind.FLOW) > 2L * COUNT);
    for (Thread worker : workers) {
      worker.join();
    }
    long buckets = (System.nanoTime() - started) / 100_000_000L + 2; // that a span of the run's length touches

    ResourceStatistics realStatistics = real.statistics("r");
    ResourceStatistics shadowStatistics = shadow.statistics("r");
    long refused = realStatistics.totalBlocked(RuleKind.FLOW);
    long wouldRefuse = shadowStatistics.totalShadowBlocked(RuleKind.FLOW);
    assertThat(realStatistics.totalPassed() + refused).isEqualTo(attempts.get());
    assertThat(shadowStatistics.totalPassed()).as("the shadow engine admits every call").isEqualTo(attempts.get());
    assertThat(shadowStatistics.totalBlocked()).isZero();
    assertThat(realStatistics.totalPassed()).as("at most count in every ten buckets the run touched (%d)", buckets)
        .isLessThanOrEqualTo((buckets + 9) / 10 * COUNT);
    assertThat(refused).as("the traffic was several times the rate").isGreaterThan(2L * COUNT);
    assertThat(Math.abs(wouldRefuse - refused)).as("shadow %d, real %d", wouldRefuse, refused)
        .isLessThanOrEqualTo(COUNT);
  }
}
