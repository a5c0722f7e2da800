package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.internal.time.EngineClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No reading can hang a limiter: four threads hand every limiter kind readings that jump forward,
 * lag behind by up to two minutes, and jump far back, while the shared ticker crawls on. Each call
 * must return; the class timeout fails the test where one loops (the window limiter used to spin
 * for ever on a reading one or two intervals old). Where the limiter can report its own count, the
 * count is checked against the limit too.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AnyReadingsTest {

  private static final long MILLIS = 1_000_000L;

  @ParameterizedTest
  @ValueSource(strings = {"window", "exact", "pacing", "warm-up", "token-bucket", "threads"})
  void everyCallReturnsWhateverTheReadings(String kind) throws InterruptedException {
    FakeTicker ticker = new FakeTicker();
    EngineClock clock = new EngineClock(ticker, (nanos) -> { });
    long start = ticker.read();
    Function<Long, FlowLimiter> create = now -> switch (kind) {
      case "window" -> new WindowLimiter(10 * MILLIS, 50, clock, now);
      case "exact" -> new ExactLimiter(10 * MILLIS, 50, clock, now);
      case "pacing" -> new PacingLimiter(10 * MILLIS, 50, 5 * MILLIS, clock, now);
      case "warm-up" -> new WarmUpLimiter(10 * MILLIS, 50, 100 * MILLIS, 3, 5 * MILLIS, clock, now);
      case "token-bucket" -> new TokenBucketLimiter(10 * MILLIS, 50, 5, clock, now);
      default -> new ConcurrencyLimiter(50);
    };
    FlowLimiter limiter = create.apply(start);
    AtomicLong admitted = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      long seed = t;
      Thread thread = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 20_000; i++) {
          if (random.nextInt(8) == 0) {
            ticker.advanceNanos(random.nextLong(2 * MILLIS));
          }
          long now = ticker.read();
          long reading = switch (random.nextInt(4)) {
            case 0 -> now - random.nextLong(120_000 * MILLIS); // late by up to two minutes
            case 1 -> now - random.nextLong(30 * MILLIS); // late by a few intervals
            case 2 -> start - random.nextLong(Long.MAX_VALUE / 4); // far before anything seen
            default -> now;
          };
          long token = limiter.tryAcquire(1, reading);
          if (token >= 0) {
            admitted.incrementAndGet();
            if (random.nextInt(4) == 0) {
              limiter.refund(1, token);
            } else {
              limiter.release(1);
            }
          }
          if (limiter instanceof WindowLimiter window) {
            assertThat(window.inWindow()).isLessThanOrEqualTo(50);
          }
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(admitted.get()).as("the limiter still admits").isPositive();
  }
}
