package dev.weir;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How long a test on the real clock keeps its threads calling: at least a set span, then until
 * what the test asserts about has happened (enough admissions, a refusal, a cycle of the breaker),
 * within a bound. On a machine busy with other work, threads get less time, and a run of fixed
 * length may end before the limit was even reached; the bounds a test asserts hold over any span,
 * so a longer run only gives them more to hold over.
 *
 * <p>Calling threads loop {@code while (run.going())}; the test's thread calls {@link #endWhen}.
 */
public final class RealTimeRun {

  /** The bound of a run: far beyond what a loaded machine needs, short of the tests' timeouts. */
  public static final Duration MOST = Duration.ofSeconds(20);

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private volatile boolean over;

  /** Ends the run now (for a test that failed before {@link #endWhen}). */
  public void end() {
    over = true;
  }

  /** Whether the calling threads are to go on. */
  public boolean going() {
    return !over;
  }

  /**
   * Waits at least {@code least}, then until {@code enough} holds (polled every 10 ms) or {@link
   * #MOST} has passed since the call; ends the run either way and returns whether {@code enough}
   * held. {@code enough} is read while the threads still call: it must be safe for that.
   */
  public boolean endWhen(Duration least, BooleanSupplier enough) {
    long start = System.nanoTime();
    long earliest = start + least.toNanos();
    long latest = start + MOST.toNanos();
    try {
      while (System.nanoTime() - earliest < 0) {
        LockSupport.parkNanos(POLL_NANOS);
      }
      while (true) {
        if (enough.getAsBoolean()) {
          return true;
        }
        if (System.nanoTime() - latest >= 0) {
          return false;
        }
        LockSupport.parkNanos(POLL_NANOS);
      }
    } finally {
      over = true;
    }
  }

  /**
   * For a loop on the test's own thread: whether to call again, {@code started} being the loop's
   * start on {@code System.nanoTime()}: until {@code least} has passed, and then while {@code enough}
   * does not hold, up to {@link #MOST}.
   */
  public static boolean again(long started, Duration least, BooleanSupplier enough) {
    long elapsed = System.nanoTime() - started;
    if (elapsed < least.toNanos()) {
      return true;
    }
    return elapsed < MOST.toNanos() && !enough.getAsBoolean();
  }
}
