package dev.weir.spring.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RetryBudget} on the real clock, with real threads for a few seconds: every first attempt
 * and every retry the budget admitted is tallied by the period it was counted in, and the bound is
 * checked over every window afterwards.
 */
@Timeout(60)
class RetryBudgetThreadsTests {

  private static final Duration WINDOW = Duration.ofMillis(500);
  private static final double RATIO = 0.2;
  private static final double MIN_PER_SECOND = 10;
  private static final int THREADS = 4;
  private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(3);

  @Test
  void retriesStayWithinTheBudgetInEveryWindow() throws Exception {
    RetryBudget budget = new RetryBudget(Ticker.system(), RATIO, WINDOW, MIN_PER_SECOND);
    List<Map<Long, long[]>> tallies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    long[] refusedByThread = new long[THREADS];
    for (int t = 0; t < THREADS; t++) {
      Map<Long, long[]> tally = new HashMap<>();
      tallies.add(tally);
      int index = t;
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long end = System.nanoTime() + RUN_NANOS;
        while (System.nanoTime() < end) {
          long first = budget.recordFirstAttemptPeriod();
          if (first != RetryBudget.NONE) {
            tally.computeIfAbsent(first, p -> new long[2])[0]++;
          }
          // a failing dependency: most calls fail and want up to three retries
          for (int retry = 0; retry < 3 && random.nextInt(10) < 8; retry++) {
            long period = budget.tryAcquireRetryPeriod();
            if (period == RetryBudget.NONE) {
              refusedByThread[index]++;
              break;
            }
            tally.computeIfAbsent(period, p -> new long[2])[1]++;
          }
          if (random.nextInt(64) == 0) {
            Thread.yield();
          }
        }
      }, "retrier-" + t);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(thread.isAlive()).isFalse();
    }

    TreeMap<Long, long[]> byPeriod = new TreeMap<>();
    for (Map<Long, long[]> tally : tallies) {
      tally.forEach((period, counts) -> {
        long[] sum = byPeriod.computeIfAbsent(period, p -> new long[2]);
        sum[0] += counts[0];
        sum[1] += counts[1];
      });
    }
    double floor = MIN_PER_SECOND * WINDOW.toNanos() / 1e9;
    int buckets = RetryBudget.BUCKETS;
    long admitted = 0;
    long windowsChecked = 0;
    for (long q = byPeriod.firstKey(); q <= byPeriod.lastKey(); q++) {
      long retries = sum(byPeriod, q - buckets + 1, q, 1);
      long[] here = byPeriod.get(q);
      if (here != null && here[1] > 0) {
        // a retry was admitted in q's window: its retries are within the allowance of its first attempts
        long allowance = (long) Math.floor(RATIO * sum(byPeriod, q - buckets + 1, q, 0) + floor);
        assertThat(retries).as("retries of the window ending at period %d", q).isLessThanOrEqualTo(allowance);
        admitted += here[1];
        windowsChecked++;
      }
      // any window: within the allowance of the first attempts of that window and the one before
      long allowance = (long) Math.floor(RATIO * sum(byPeriod, q - 2 * buckets + 1, q, 0) + floor);
      assertThat(retries).as("retries of any window, ending at period %d", q).isLessThanOrEqualTo(allowance);
    }
    long refused = 0;
    for (long r : refusedByThread) {
      refused += r;
    }
    long firsts = sum(byPeriod, byPeriod.firstKey(), byPeriod.lastKey(), 0);
    assertThat(windowsChecked).as("windows with retries").isGreaterThan(20);
    assertThat(refused).as("retries refused").isGreaterThan(admitted);
    assertThat((double) admitted).as("retries admitted, against %d first attempts", firsts)
        .isGreaterThan(RATIO * firsts * 0.5);
  }

  private static long sum(TreeMap<Long, long[]> byPeriod, long from, long to, int index) {
    long sum = 0;
    for (long[] counts : byPeriod.subMap(from, true, to, true).values()) {
      sum += counts[index];
    }
    return sum;
  }
}
