package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.internal.time.EngineClock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link FlowLimiter#settle} of every local limiter that counts permits, on a driven ticker: exact
 * arithmetic of refunds and debts, saturation at {@link Long#MAX_VALUE}, and the bound (the cost a
 * limiter takes over any window is at most its count plus the largest excess of one call) checked
 * over long seeded runs of heavy-tailed costs, where each call settles some admissions later.
 */
class SettleDrivenTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long BUCKET = SECOND / WindowLimiter.BUCKETS;

  private final FakeTicker ticker = new FakeTicker(1_000 * SECOND);
  private final EngineClock clock = new EngineClock(ticker, ticker);

  private long now() {
    return ticker.read();
  }

  // ---- sliding window

  @Test
  void aWindowRefundGoesBackToTheCallsBucket() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, now());
    long token = limiter.tryAcquire(50, now());
    assertThat(limiter.tryAcquire(51, now())).isNegative();
    limiter.settle(-40, token, now()); // used 10 of 50
    assertThat(limiter.inWindow()).isEqualTo(10);
    assertThat(limiter.tryAcquire(90, now())).isNotNegative();
    assertThat(limiter.tryAcquire(1, now())).isNegative();
  }

  @Test
  void aWindowDebtIsTakenInFullWhileTheWindowHasRoomAndShutsItUntilItLeaves() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, now());
    long token = limiter.tryAcquire(10, now());
    limiter.settle(200, token, now()); // used 210
    assertThat(limiter.inWindow()).isEqualTo(210);
    assertThat(limiter.owed()).isZero();
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    ticker.advanceNanos(SECOND - 1);
    assertThat(limiter.tryAcquire(1, now())).as("the debt's bucket is still in the window").isNegative();
    ticker.advanceNanos(1);
    assertThat(limiter.tryAcquire(100, now())).isNotNegative();
  }

  @Test
  void aWindowDebtOwedWhileFullIsTakenAsRoomComesBeforeAnyAdmission() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, now());
    long first = limiter.tryAcquire(60, now());
    long second = limiter.tryAcquire(40, now());
    limiter.settle(30, first, now()); // full: owed
    limiter.settle(20, second, now()); // owed too: only one excess may pass the count
    assertThat(limiter.inWindow()).isEqualTo(100);
    assertThat(limiter.owed()).isEqualTo(50);
    ticker.advanceNanos(SECOND);
    assertThat(limiter.tryAcquire(50, now())).isNotNegative(); // after taking the 50 owed
    assertThat(limiter.owed()).isZero();
    assertThat(limiter.inWindow()).isEqualTo(100);
    assertThat(limiter.tryAcquire(1, now())).isNegative();
  }

  @Test
  void aRefundLowersADebtOwedFirst() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, now());
    long a = limiter.tryAcquire(50, now());
    long b = limiter.tryAcquire(50, now());
    limiter.settle(30, a, now());
    assertThat(limiter.owed()).isEqualTo(30);
    limiter.settle(-40, b, now()); // 30 pay the debt, 10 go back to the bucket
    assertThat(limiter.owed()).isZero();
    assertThat(limiter.inWindow()).isEqualTo(90);
  }

  @Test
  void aWindowSaturatesAtTheLargestCost() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, now());
    long token = limiter.tryAcquire(1, now());
    limiter.settle(Long.MAX_VALUE - 1, token, now());
    assertThat(limiter.inWindow()).isPositive().isLessThanOrEqualTo(Integer.MAX_VALUE);
    assertThat(limiter.owed()).isPositive();
    limiter.settle(Long.MAX_VALUE - 1, token, now()); // owed again: saturates, never wraps
    assertThat(limiter.owed()).isEqualTo(Long.MAX_VALUE);
    for (int i = 0; i < 30; i++) {
      ticker.advanceNanos(SECOND);
      assertThat(limiter.tryAcquire(1, now())).isNegative();
      assertThat(limiter.owed()).isPositive();
    }
  }

  // ---- exact window

  @Test
  void anExactRefundRemovesTheCallsOwnTimes() {
    ExactLimiter limiter = new ExactLimiter(SECOND, 10, clock, now());
    long early = limiter.tryAcquire(5, now());
    ticker.advanceNanos(SECOND / 2);
    limiter.tryAcquire(5, now());
    limiter.settle(-4, early, now()); // the early call used 1
    assertThat(limiter.tryAcquire(4, now())).isNotNegative();
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    ticker.advanceNanos(SECOND / 2); // the early call's one permit leaves: one more fits
    assertThat(limiter.tryAcquire(1, now())).isNotNegative();
    assertThat(limiter.tryAcquire(1, now())).isNegative();
  }

  @Test
  void anExactDebtIsRecordedAsRoomComesAndNeverPassesTheCount() {
    ExactLimiter limiter = new ExactLimiter(SECOND, 10, clock, now());
    long token = limiter.tryAcquire(5, now());
    limiter.settle(20, token, now()); // 5 fit now, 15 owed
    assertThat(limiter.owed()).isEqualTo(15);
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    ticker.advanceNanos(SECOND);
    assertThat(limiter.tryAcquire(1, now())).as("10 of the 15 taken, 5 still owed").isNegative();
    assertThat(limiter.owed()).isEqualTo(5);
    ticker.advanceNanos(SECOND);
    assertThat(limiter.tryAcquire(5, now())).isNotNegative();
    assertThat(limiter.owed()).isZero();
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    limiter.settle(Long.MAX_VALUE, 0, now());
    limiter.settle(Long.MAX_VALUE, 0, now());
    assertThat(limiter.owed()).isEqualTo(Long.MAX_VALUE);
  }

  // ---- token bucket (a hot-parameter rule's per-key limiter)

  @Test
  void aBucketRefundRefillsItAndADebtEmptiesItBeyondTheHorizon() {
    TokenBucketLimiter limiter = new TokenBucketLimiter(SECOND, 10, 0, clock, now()); // 100 ms a permit
    long token = limiter.tryAcquire(8, now());
    limiter.settle(-6, token, now()); // used 2
    assertThat(limiter.tryAcquire(8, now())).isNotNegative();
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    long last = limiter.tryAcquire(0, now()); // nothing taken: still admitted, cost 1 ns at least
    limiter.settle(5, last, now()); // the bucket is full: owed
    assertThat(limiter.owed()).isEqualTo(5);
    ticker.advanceNanos(300_000_000); // 3 permits come back: all go to the debt
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    assertThat(limiter.owed()).isEqualTo(2);
    ticker.advanceNanos(300_000_000);
    assertThat(limiter.tryAcquire(1, now())).isNotNegative();
    assertThat(limiter.owed()).isZero();
  }

  @Test
  void aBucketDebtInFullPushesTheNextAdmissionOnByItsEmission() {
    TokenBucketLimiter limiter = new TokenBucketLimiter(SECOND, 10, 0, clock, now());
    long token = limiter.tryAcquire(1, now());
    limiter.settle(30, token, now()); // 3 s of emission beyond the call's
    assertThat(limiter.owed()).isZero();
    ticker.advanceNanos(3 * SECOND - 1);
    assertThat(limiter.tryAcquire(10, now())).isNegative();
    ticker.advanceNanos(SECOND + 1);
    assertThat(limiter.tryAcquire(10, now())).isNotNegative();
    limiter.settle(Long.MAX_VALUE, 0, now());
    limiter.settle(Long.MAX_VALUE, 0, now());
    assertThat(limiter.owed()).isEqualTo(Long.MAX_VALUE);
    ticker.advanceNanos(1_000 * SECOND);
    assertThat(limiter.tryAcquire(1, now())).isNegative();
  }

  // ---- queue and warm-up: the schedule

  @Test
  void aQueueDebtMovesLaterReservationsAndARefundGivesBackTheTailOfTheLast() {
    PacingLimiter limiter = new PacingLimiter(SECOND, 10, 10 * SECOND, clock, now()); // 100 ms a permit
    long start = now();
    long a = limiter.tryAcquireWithoutWaiting(5, now()); // [0, 500 ms)
    limiter.settle(-3, a, now()); // used 2: the schedule ends at 200 ms
    long b = limiter.tryAcquireWithoutWaiting(1, now());
    assertThat(b).isEqualTo(a - 300_000_000L + 100_000_000L); // [200, 300 ms)
    long c = limiter.tryAcquireWithoutWaiting(1, now()); // [300, 400 ms)
    limiter.settle(-1, b, now()); // c was scheduled after b: b gives nothing back
    limiter.settle(4, c, now()); // c used 5: the next call comes 400 ms later
    long d = limiter.tryAcquireWithoutWaiting(1, now());
    assertThat(d - c).isEqualTo(500_000_000L);
    assertThat(start).isEqualTo(now());
    limiter.settle(Long.MAX_VALUE, d, now());
    limiter.settle(Long.MAX_VALUE, d, now());
    assertThat(limiter.tryAcquire(1, now())).isNegative();
    assertThat(FlowLimiter.retryAfterNanos(limiter.tryAcquire(1, now()))).isPositive();
  }

  @Test
  void aWarmUpDebtPushesTheScheduleAtTheStableSpacing() {
    WarmUpLimiter limiter = new WarmUpLimiter(SECOND, 10, 10 * SECOND, 3, 0, clock, now());
    long token = limiter.tryAcquire(1, now());
    assertThat(token).isNotNegative();
    ticker.advanceNanos(SECOND); // the cold spacing has passed: admitted again
    token = limiter.tryAcquire(1, now());
    assertThat(token).isNotNegative();
    limiter.settle(20, token, now()); // 2 s at the stable 100 ms
    ticker.advanceNanos(2 * SECOND);
    assertThat(limiter.tryAcquire(1, now())).as("the call's own cold spacing is still ahead").isNegative();
    ticker.advanceNanos(SECOND);
    assertThat(limiter.tryAcquire(1, now())).isNotNegative();
    limiter.settle(Long.MAX_VALUE, 0, now());
    limiter.settle(Long.MAX_VALUE, 0, now());
    assertThat(limiter.tryAcquire(1, now())).isNegative();
  }

  // ---- the bound, over long seeded runs

  /**
   * Calls of a fixed estimate and a heavy-tailed actual cost (Pareto, alpha 1.2), each settling a
   * few admissions after its own, at one reading per 10 ms for 60 s. After each step the window
   * ending at the newest bucket holds at most count plus the largest excess settled so far.
   */
  @Test
  void aWindowNeverHoldsMoreThanItsCountPlusTheLargestExcess() {
    long count = 1_000;
    WindowLimiter limiter = new WindowLimiter(SECOND, count, clock, now());
    long largestExcess = run(limiter, 20, 7, (inWindow, excess) ->
        assertThat(inWindow).isLessThanOrEqualTo(count + excess), limiter::inWindow);
    assertThat(largestExcess).as("the run had large excesses").isGreaterThan(count / 10);
  }

  @Test
  void anExactWindowNeverHoldsMoreThanItsCount() {
    long count = 1_000;
    ExactLimiter limiter = new ExactLimiter(SECOND, count, clock, now());
    run(limiter, 20, 11, (inside, excess) -> assertThat(inside).isLessThanOrEqualTo(count), () -> inside(limiter));
  }

  /** The bucket's tat is never more than its horizon plus the largest excess ahead of the reading. */
  @Test
  void aBucketNeverRunsAheadByMoreThanItsCapacityPlusTheLargestExcess() {
    long count = 1_000;
    TokenBucketLimiter limiter = new TokenBucketLimiter(SECOND, count, 0, clock, now());
    long emission = SECOND / count;
    run(limiter, 20, 13, (ahead, excess) -> assertThat(ahead).isLessThanOrEqualTo((count + excess) * emission),
        () -> aheadOf(limiter));
  }

  interface Check {
    void check(long measured, long largestExcess);
  }

  /** Runs the seeded workload against {@code limiter}; returns the largest excess settled. */
  private long run(FlowLimiter limiter, int estimate, long seed, Check check, java.util.function.LongSupplier measure) {
    SplittableRandom random = new SplittableRandom(seed);
    Deque<long[]> inFlight = new ArrayDeque<>();
    long largestExcess = 0;
    for (int step = 0; step < 6_000; step++) {
      ticker.advanceNanos(10_000_000);
      for (int call = 0; call < 5; call++) {
        long token = limiter.tryAcquire(estimate, now());
        if (token >= 0) {
          inFlight.add(new long[] {token, pareto(random)});
        }
        check.check(measure.getAsLong(), largestExcess);
      }
      while (inFlight.size() > 3) {
        long[] call = inFlight.poll();
        long excess = call[1] - estimate;
        largestExcess = Math.max(largestExcess, excess);
        limiter.settle(excess, call[0], now());
        check.check(measure.getAsLong(), largestExcess);
      }
    }
    return largestExcess;
  }

  /** A cost from a Pareto distribution of minimum 1 and alpha 1.2, at most 10^6. */
  static long pareto(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    return (long) Math.min(1e6, Math.ceil(Math.pow(u, -1 / 1.2)));
  }

  private long inside(ExactLimiter limiter) {
    long[] out = new long[2];
    limiter.readQuota(now(), out);
    return 1_000 - out[0];
  }

  private long aheadOf(TokenBucketLimiter limiter) {
    return limiter.ahead(now());
  }
}
