package dev.weir;

import java.util.concurrent.TimeUnit;

/**
 * How a queued call waits for its slot ({@code queue} and {@code warm-up-queue} flow rules).
 *
 * <p>The default sleeps the calling thread. Tests that drive a {@link Ticker} by hand supply a
 * sleeper that advances that ticker instead, so waiting is observable and instantaneous.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Waits for about {@code nanos} nanoseconds.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void sleep(long nanos) throws InterruptedException;

  /** Returns the sleeper that parks the calling thread. */
  static Sleeper system() {
    return TimeUnit.NANOSECONDS::sleep;
  }
}
