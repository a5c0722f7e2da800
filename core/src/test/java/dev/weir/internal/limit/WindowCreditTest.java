package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.internal.time.EngineClock;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WindowLimiter}'s per-thread credits on a driven ticker: exact arithmetic of leases, that a
 * stale credit goes back to its bucket, and that threads taking turns at one reading admit exactly
 * the count (credits never let one more through, and none is lost while every thread keeps calling).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WindowCreditTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long BUCKET = SECOND / WindowLimiter.BUCKETS;

  private final FakeTicker ticker = new FakeTicker(1_000 * SECOND);
  private final EngineClock clock = new EngineClock(ticker, ticker);

  @Test
  void aLargeWindowLeasesCreditsThatLaterCallsSpend() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100_000, clock, ticker.read());
    long now = ticker.read();
    assertThat(limiter.tryAcquire(1, now)).isNotNegative();
    assertThat(limiter.inWindow()).as("the call and its lease").isEqualTo(1 + WindowLimiter.LEASE);
    assertThat(limiter.unspentCredits()).isEqualTo(WindowLimiter.LEASE);
    for (int i = 0; i < WindowLimiter.LEASE; i++) {
      assertThat(limiter.tryAcquire(1, now)).isNotNegative();
    }
    assertThat(limiter.inWindow()).as("spent from the credit: nothing more counted").isEqualTo(1 + WindowLimiter.LEASE);
    assertThat(limiter.unspentCredits()).isZero();
    assertThat(limiter.tryAcquire(1, now)).isNotNegative();
    assertThat(limiter.inWindow()).isEqualTo(2 + 2 * WindowLimiter.LEASE);
  }

  @Test
  void aSmallWindowNeverLeases() {
    WindowLimiter limiter = new WindowLimiter(SECOND, WindowLimiter.LEASE_FLOOR, clock, ticker.read());
    assertThat(limiter.tryAcquire(1, ticker.read())).isNotNegative();
    assertThat(limiter.inWindow()).isEqualTo(1);
    assertThat(limiter.unspentCredits()).isZero();
  }

  @Test
  void oneThreadAdmitsExactlyTheCountAtOneReading() {
    int count = 10_000;
    WindowLimiter limiter = new WindowLimiter(SECOND, count, clock, ticker.read());
    long now = ticker.read();
    int admitted = 0;
    while (limiter.tryAcquire(1, now) >= 0) {
      admitted++;
    }
    assertThat(admitted).isEqualTo(count);
    assertThat(limiter.inWindow()).isEqualTo(count);
    assertThat(limiter.unspentCredits()).isZero();
  }

  @Test
  void aCreditOfAnOlderBucketGoesBackToItsBucket() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100_000, clock, ticker.read());
    assertThat(limiter.tryAcquire(1, ticker.read())).isNotNegative();
    ticker.advanceNanos(BUCKET);
    assertThat(limiter.tryAcquire(1, ticker.read())).isNotNegative();
    // Bucket 0 keeps its one admission (its 64 unspent credits came back), bucket 1 has 1 + a lease.
    assertThat(limiter.inWindow()).isEqualTo(1 + 1 + WindowLimiter.LEASE);
    assertThat(limiter.unspentCredits()).isEqualTo(WindowLimiter.LEASE);
  }

  @Test
  void refundOfACallAdmittedFromACreditLowersItsBucket() {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100_000, clock, ticker.read());
    long now = ticker.read();
    limiter.tryAcquire(1, now);
    long fromCredit = limiter.tryAcquire(1, now);
    limiter.refund(1, fromCredit);
    assertThat(limiter.inWindow()).isEqualTo(WindowLimiter.LEASE);
    assertThat(limiter.unspentCredits()).isEqualTo(WindowLimiter.LEASE - 1);
  }

  /**
   * A thread holding a credit of bucket 0 is late: another thread moved the window to bucket 1, and
   * the first comes back with its old reading. It must not spend the old credit (its call is decided
   * on a fresh reading, in bucket 1), and every admission stays counted exactly once.
   */
  @Test
  void aLateReadingNeverSpendsACreditOfAnOlderBucket() throws Exception {
    WindowLimiter limiter = new WindowLimiter(SECOND, 100_000, clock, ticker.read());
    long old = ticker.read();
    java.util.concurrent.ExecutorService late = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      assertThat(late.submit(() -> limiter.tryAcquire(1, old)).get(10, TimeUnit.SECONDS)).isNotNegative();
      ticker.advanceNanos(BUCKET);
      assertThat(limiter.tryAcquire(1, ticker.read())).as("another thread, in bucket 1").isNotNegative();
      long token = late.submit(() -> limiter.tryAcquire(1, old)).get(10, TimeUnit.SECONDS);
      assertThat(token).isNotNegative();
      assertThat((int) token).as("the late call is counted in bucket 1").isEqualTo((int) (old / BUCKET + 1));
    } finally {
      late.shutdownNow();
    }
    assertThat(limiter.strandedCredits()).as("the credit of bucket 0 went back to it").isZero();
    assertThat(limiter.inWindow() - limiter.unspentCredits()).as("three admissions, each counted once").isEqualTo(3);
  }

  /**
   * Four threads take turns (a barrier between rounds, so each round interleaves all four in any
   * order) at one reading, each calling until refused: together they admit exactly the count,
   * whichever cells they share.
   */
  @Test
  void threadsTakingTurnsAtOneReadingAdmitExactlyTheCount() throws Exception {
    int count = 6000;
    WindowLimiter limiter = new WindowLimiter(SECOND, count, clock, ticker.read());
    long now = ticker.read();
    int threads = 4;
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    CyclicBarrier round = new CyclicBarrier(threads);
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      workers[t] = new Thread(() -> {
        boolean done = false;
        try {
          while (true) {
            if (!done) {
              for (int i = 0; i < 50; i++) {
                if (limiter.tryAcquire(1, now) >= 0) {
                  admitted.incrementAndGet();
                } else {
                  done = true;
                  refused.incrementAndGet();
                  break;
                }
              }
            }
            round.await(10, TimeUnit.SECONDS);
            if (refused.get() == threads) {
              return;
            }
            round.await(10, TimeUnit.SECONDS);
          }
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      workers[t].start();
    }
    for (Thread worker : workers) {
      worker.join(20_000);
      assertThat(worker.isAlive()).isFalse();
    }
    assertThat(admitted.get()).isEqualTo(count);
    assertThat(limiter.inWindow()).isEqualTo(count);
  }
}
