package com.google.common.util.concurrent;

import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Builds Guava {@link RateLimiter}s on a clock the caller drives, for the accuracy harness
 * ({@code dev.weir.benchmarks.accuracy}). Guava's own hook for this, {@code RateLimiter.SleepingStopwatch}
 * and the factory that takes one, are package-private: this adapter lives in Guava's package (on
 * the class path, not as a module) only to reach them. Nothing else of Guava is touched.
 */
public final class DrivenRateLimiters {

  private DrivenRateLimiters() {
  }

  /**
   * A smooth-bursty limiter ({@link RateLimiter#create(double)}: up to one second of unused permits
   * stored) reading {@code micros} for the time, and telling {@code sleeper} of every wait instead
   * of sleeping (a wait only happens through {@code acquire} or {@code tryAcquire} with a timeout).
   */
  public static RateLimiter create(double permitsPerSecond, LongSupplier micros, LongConsumer sleeper) {
    return RateLimiter.create(permitsPerSecond, new RateLimiter.SleepingStopwatch() {
      @Override
      protected long readMicros() {
        return micros.getAsLong();
      }

      @Override
      protected void sleepMicrosUninterruptibly(long waitMicros) {
        if (waitMicros > 0) {
          sleeper.accept(waitMicros);
        }
      }
    });
  }
}
