package dev.weir;

import java.util.concurrent.locks.LockSupport;

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

  /**
   * Returns the sleeper that parks the calling thread until {@code nanos} have passed on
   * {@link System#nanoTime()}. It parks rather than sleeps: {@code Thread.sleep} rounds waits up to
   * whole milliseconds, which would space a 10,000-per-second queue a millisecond apart.
   */
  static Sleeper system() {
    return nanos -> {
      long deadline = System.nanoTime() + nanos;
      for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
        LockSupport.parkNanos(left);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    };
  }
}
