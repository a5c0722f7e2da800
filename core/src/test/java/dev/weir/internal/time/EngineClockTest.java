package dev.weir.internal.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.Sleeper;
import dev.weir.Ticker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The first half of the time model (see {@link EngineClock}): the ticker made monotone, once. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class EngineClockTest {

  private static final long MILLIS = 1_000_000L;

  private final FakeTicker time = new FakeTicker();

  @Test
  void aTickerGoingBackResumesEngineTimeWhereItWas() {
    EngineClock clock = new EngineClock(time, time);
    time.advance(Duration.ofSeconds(5));
    long before = clock.read();
    time.advance(Duration.ofHours(-3));
    assertThat(clock.read()).isEqualTo(before);
    time.advance(Duration.ofMillis(7));
    assertThat(clock.read()).as("then moves with the ticker again").isEqualTo(before + 7 * MILLIS);
  }

  @Test
  void smallStepsBackStayWithinOneStep() {
    EngineClock clock = new EngineClock(time, time);
    long newest = clock.read();
    for (int i = 0; i < 1000; i++) {
      time.advanceNanos(i % 3 == 2 ? -150_000 : 100_000);
      long now = clock.read();
      assertThat(now).isGreaterThanOrEqualTo(newest - EngineClock.STEP_NANOS);
      newest = Math.max(newest, now);
    }
  }

  /**
   * A slow thread is not a clock going back, even when it is descheduled at the worst moment:
   * between its fresh reading and its look at the newest one (the engine used to take that delay
   * for a backward jump and push its time ahead by it).
   */
  @Test
  void aThreadDescheduledInsideItsReadingNeverShiftsEngineTime() throws InterruptedException {
    HoldingTicker ticker = new HoldingTicker(time);
    EngineClock clock = new EngineClock(ticker, ticker);
    AtomicLong lateReading = new AtomicLong();
    Thread late = new Thread(() -> lateReading.set(clock.read()), "late");
    ticker.holdReadsOf(late, 2);
    late.start();

    ticker.awaitHeld(); // its first reading is taken; others move on and publish a newer one
    time.advance(Duration.ofMillis(2));
    clock.read();
    ticker.releaseOne();
    ticker.awaitHeld(); // now inside the re-reading: the ticker answered, then the thread stalls
    long fresh = time.read();
    time.advance(Duration.ofMillis(5));
    assertThat(clock.read()).isEqualTo(time.read());
    ticker.releaseOne();
    late.join(5_000);

    assertThat(lateReading.get()).isEqualTo(fresh);
    assertThat(clock.read()).as("engine time still equals the ticker: no skew").isEqualTo(time.read());
  }

  /** Holds the chosen thread right after the ticker answered, on each of its first reads. */
  private static final class HoldingTicker implements Ticker, Sleeper {
    private final FakeTicker time;
    private volatile Thread target;
    private final AtomicInteger holdsLeft = new AtomicInteger();
    private volatile CountDownLatch held = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);

    HoldingTicker(FakeTicker time) {
      this.time = time;
    }

    void holdReadsOf(Thread thread, int reads) {
      target = thread;
      holdsLeft.set(reads);
    }

    @Override
    public long read() {
      long now = time.read();
      if (Thread.currentThread() == target && holdsLeft.getAndDecrement() > 0) {
        CountDownLatch myRelease = release;
        held.countDown();
        await(myRelease);
      }
      return now;
    }

    void awaitHeld() {
      await(held);
    }

    void releaseOne() {
      CountDownLatch current = release;
      held = new CountDownLatch(1);
      release = new CountDownLatch(1);
      current.countDown();
    }

    @Override
    public void sleep(long nanos) {
      time.sleep(nanos);
    }

    private static void await(CountDownLatch latch) {
      try {
        assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }
}
