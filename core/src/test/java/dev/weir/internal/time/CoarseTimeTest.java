package dev.weir.internal.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The coarse time of an engine built with {@code clockResolution}: reads return what its thread
 * last read from the ticker, never going back, and the thread ends with the engine (closed, or
 * dropped unclosed). On a driven ticker, so that what a read returns is exactly a ticker reading.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class CoarseTimeTest {

  private static final long RESOLUTION = 100_000; // 100 µs

  private final FakeTicker ticker = new FakeTicker();

  /** Waits, at most 10 s, for the coarse time to publish {@code expected}. */
  private static void awaitReading(EngineClock clock, long expected) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (clock.read() != expected && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(clock.read()).isEqualTo(expected);
  }

  @Test
  void readsReturnTheTickersReadingOfTheLastTickAndReadFreshTheTickersNow() throws InterruptedException {
    EngineClock clock = new EngineClock(ticker, ticker, RESOLUTION);
    try {
      long start = clock.read();
      ticker.advance(Duration.ofMillis(7));
      assertThat(clock.readFresh()).as("readFresh reads the ticker").isEqualTo(start + 7_000_000);
      awaitReading(clock, start + 7_000_000);
      ticker.advance(Duration.ofSeconds(-3)); // a ticker going back: engine time holds where it was
      // A fresh reading while the ticker is back absorbs the step (the clock's thread would, at its
      // next tick; on a loaded machine that tick may come only after the step forward below).
      assertThat(clock.readFresh()).as("a fresh reading after the ticker went back").isEqualTo(start + 7_000_000);
      assertThat(clock.read()).isEqualTo(start + 7_000_000);
      ticker.advance(Duration.ofSeconds(3));
      awaitReading(clock, start + 3_007_000_000L); // then it moves with the ticker again, as EngineClockTest shows
    } finally {
      clock.close();
    }
  }

  @Test
  void closingStopsTheThreadAndReadsKeepTheLastReading() throws InterruptedException {
    EngineClock clock = new EngineClock(ticker, ticker, RESOLUTION);
    CoarseTime time = clock.coarseTime();
    Thread.sleep(20); // a few ticks: the thread keeps running (it once ended at its first tick)
    assertThat(time.running()).isTrue();
    clock.close();
    time.join(Duration.ofSeconds(5));
    assertThat(time.running()).isFalse();
    long last = clock.read();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(clock.read()).isEqualTo(last);
    assertThat(clock.readFresh()).isEqualTo(last + 1_000_000_000L);
    clock.close(); // idempotent
  }

  @Test
  void aClockDroppedUnclosedEndsItsThread() throws InterruptedException {
    WeakReference<CoarseTime> time = dropped();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (time.get() != null && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }
    assertThat(time.get()).as("the coarse time and its clock, collected: the thread held neither").isNull();
  }

  private WeakReference<CoarseTime> dropped() {
    EngineClock clock = new EngineClock(ticker, ticker, RESOLUTION);
    return new WeakReference<>(clock.coarseTime());
  }

  @Test
  void withoutAResolutionEveryReadReadsTheTicker() {
    EngineClock clock = new EngineClock(ticker, ticker, 0);
    assertThat(clock.coarseTime()).isNull();
    assertThat(clock.resolutionNanos()).isZero();
    long start = clock.read();
    ticker.advanceNanos(1);
    assertThat(clock.read()).isEqualTo(start + 1);
  }
}
