package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.internal.time.EngineClock;
import org.junit.jupiter.api.Test;

/**
 * Settles that arrive late, on a driven ticker: a thread read the clock, then others went on (the
 * window moved, the bucket refilled, other calls settled), and only then does it settle with its
 * old reading, or with the token of a bucket that has left the window.
 */
class SettleInterleavingTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long BUCKET = SECOND / WindowLimiter.BUCKETS;

  private final FakeTicker ticker = new FakeTicker(1_000 * SECOND);
  private final EngineClock clock = new EngineClock(ticker, ticker);

  @Test
  void aLateDebtIsCountedInTheNewestBucketNotInItsOld() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, ticker.read());
    long old = ticker.read();
    long token = limiter.tryAcquire(10, old);
    ticker.advanceNanos(5 * BUCKET); // others go on: 50 admitted half a second later
    assertThat(limiter.tryAcquire(50, ticker.read())).isNotNegative();
    limiter.settle(30, token, old); // settles with the reading it took before all that
    assertThat(limiter.inWindow()).isEqualTo(90);
    ticker.advanceNanos(5 * BUCKET); // the call's own bucket leaves; the debt stays, in the newest
    assertThat(limiter.tryAcquire(21, ticker.read())).isNegative();
    assertThat(limiter.inWindow()).isEqualTo(80);
    assertThat(limiter.tryAcquire(20, ticker.read())).isNotNegative();
  }

  @Test
  void aRefundForABucketThatLeftTheWindowLowersNothing() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, ticker.read());
    long token = limiter.tryAcquire(40, ticker.read());
    ticker.advanceNanos(SECOND); // the bucket leaves, its slot now holds a newer bucket
    assertThat(limiter.tryAcquire(100, ticker.read())).isNotNegative();
    limiter.settle(-40, token, ticker.read());
    assertThat(limiter.inWindow()).isEqualTo(100);
    assertThat(limiter.tryAcquire(1, ticker.read())).isNegative();
  }

  @Test
  void aLateDebtOnABucketIsJudgedAgainstTheBucketAsItIsNow() {
    TokenBucketLimiter limiter = new TokenBucketLimiter(SECOND, 10, 0, clock, ticker.read());
    long old = ticker.read();
    long token = limiter.tryAcquire(2, old);
    ticker.advanceNanos(SECOND); // refilled; others take all 10
    assertThat(limiter.tryAcquire(10, ticker.read())).isNotNegative();
    limiter.settle(50, token, old); // the bucket is empty now: owed, however old the reading
    assertThat(limiter.owed()).isEqualTo(50);
    assertThat(limiter.ahead(ticker.read())).isEqualTo(SECOND);
  }

  @Test
  void aLateExactDebtIsRecordedAtTheNewestDecision() {
    ExactLimiter limiter = new ExactLimiter(SECOND, 10, clock, ticker.read());
    long old = ticker.read();
    long token = limiter.tryAcquire(2, old);
    ticker.advanceNanos(SECOND / 2);
    assertThat(limiter.tryAcquire(3, ticker.read())).isNotNegative();
    limiter.settle(4, token, old);
    ticker.advanceNanos(SECOND / 2); // the call's own 2 leave; its debt, recorded at the newest decision, stays
    assertThat(limiter.tryAcquire(3, ticker.read())).isNotNegative();
    assertThat(limiter.tryAcquire(1, ticker.read())).isNegative();
  }

  /** A refund and a debt of two calls arrive in either order: the limiter ends the same. */
  @Test
  void aRefundAndADebtCommuteOverTheDebtOwed() {
    for (boolean refundFirst : new boolean[] {true, false}) {
      WindowLimiter limiter = new WindowLimiter(SECOND, 100, clock, ticker.read());
      long a = limiter.tryAcquire(50, ticker.read());
      long b = limiter.tryAcquire(50, ticker.read());
      if (refundFirst) {
        limiter.settle(-30, a, ticker.read());
        limiter.settle(40, b, ticker.read()); // room: taken in full
      } else {
        limiter.settle(40, b, ticker.read()); // full: owed
        limiter.settle(-30, a, ticker.read()); // pays 30 of it
      }
      assertThat(limiter.inWindow() + limiter.owed()).as("refund first: %s", refundFirst).isEqualTo(110);
      ticker.advanceNanos(SECOND);
    }
  }

  /**
   * A queue call settles late, with the reading it took before others reserved after it: its debt is
   * laid after their slots, never over them, and its refund gives nothing back once a call was
   * scheduled after it.
   */
  @Test
  void aLateQueueSettleLaysItsDebtAfterTheSlotsTakenMeanwhile() {
    PacingLimiter queue = new PacingLimiter(SECOND, 10, 100 * SECOND, clock, ticker.read());
    long old = ticker.read();
    long first = queue.tryAcquireWithoutWaiting(2, old); // [0, 200 ms)
    long second = queue.tryAcquireWithoutWaiting(3, ticker.read()); // [200, 500 ms), another thread's
    queue.settle(-2, first, old); // nothing back: the second call is scheduled after it
    queue.settle(5, first, old); // laid at [500, 1000 ms)
    assertThat(queue.scheduled()).isEqualTo(SECOND);
    assertThat(second).isEqualTo(500_000_000L);
  }

  /** The same for a warm-up schedule, whose debt is laid at the stable spacing. */
  @Test
  void aLateWarmUpSettleLaysItsDebtAfterTheScheduleAsItIsNow() {
    WarmUpLimiter warmUp = new WarmUpLimiter(SECOND, 10, SECOND, 3, 100 * SECOND, clock, ticker.read());
    long old = ticker.read();
    long first = warmUp.tryAcquireWithoutWaiting(1, old);
    long second = warmUp.tryAcquireWithoutWaiting(1, ticker.read());
    long before = warmUp.scheduled();
    assertThat(second).isEqualTo(before);
    warmUp.settle(-1, first, old); // the second was scheduled after it: nothing back
    assertThat(warmUp.scheduled()).isEqualTo(before);
    warmUp.settle(4, first, old);
    assertThat(warmUp.scheduled()).isEqualTo(before + 400_000_000L);
  }
}
