package dev.weir.test;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when the test says, and a {@link Sleeper} that moves it instead of
 * waiting: give one instance to an engine as both ({@code Weir.builder().ticker(t).sleeper(t)}), and
 * every time-based rule (windows, warm-up, queues, circuit breakers) can be checked exactly and
 * without sleeping. In a Spring Boot test, {@link AutoConfigureWeirTest} declares one as a bean.
 *
 * <p>The reading starts at an arbitrary value far from zero unless one is given, because an engine
 * must rely only on differences between readings, as with {@link System#nanoTime()}. Like
 * {@code nanoTime}, the reading wraps around on overflow.
 *
 * <p>The ticker only goes forward: {@link #advance(Duration)} and {@link #advanceNanos(long)} refuse
 * a negative amount. A monotonic time source never steps back, so a test that moved one back would
 * be testing something no production clock does (the engine absorbs such a step rather than
 * replaying time); a test of that edge case wants a {@code Ticker} of its own.
 *
 * <p>{@link #sleep(long)} advances the reading by the requested time at once and adds it to
 * {@link #slept()}, so a queued call proceeds immediately and the test can see how long it was made
 * to wait. Thread-safe: every method may be called from any thread.
 */
public final class DrivenTicker implements Ticker, Sleeper {

  /** About 36 days before zero, and no whole number of milliseconds: nothing may depend on it. */
  private static final long DEFAULT_START = -3_141_592_653_589_793L;

  private final AtomicLong nanos;
  private final AtomicLong slept = new AtomicLong();

  /** Creates a ticker whose reading starts at an arbitrary value, neither zero nor a round number. */
  public DrivenTicker() {
    this(DEFAULT_START);
  }

  /** Creates a ticker whose first reading is {@code startNanos}. */
  public DrivenTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  /** Returns the current reading in nanoseconds; it changes only through this object's methods. */
  @Override
  public long read() {
    return nanos.get();
  }

  /**
   * Moves the reading forward by {@code duration}.
   *
   * @return this ticker
   * @throws IllegalArgumentException if {@code duration} is negative
   * @throws ArithmeticException if {@code duration} does not fit in a {@code long} of nanoseconds
   */
  public DrivenTicker advance(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a DrivenTicker only goes forward; cannot advance by " + duration);
    }
    return advanceNanos(duration.toNanos());
  }

  /**
   * Moves the reading forward by {@code nanos} nanoseconds.
   *
   * @return this ticker
   * @throws IllegalArgumentException if {@code nanos} is negative
   */
  public DrivenTicker advanceNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("a DrivenTicker only goes forward; cannot advance by " + nanos + " ns");
    }
    this.nanos.addAndGet(nanos);
    return this;
  }

  /**
   * Instead of waiting, moves the reading forward by {@code nanos} and adds them to {@link #slept()};
   * returns at once. Zero or a negative value changes nothing, as a wait of that length would not
   * wait. As a real sleeper would, it throws without advancing if the calling thread is interrupted.
   *
   * @throws InterruptedException if the calling thread is interrupted (its flag is then cleared)
   */
  @Override
  public void sleep(long nanos) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (nanos > 0) {
      slept.addAndGet(nanos);
      this.nanos.addAndGet(nanos);
    }
  }

  /** Returns the total of every {@link #sleep(long)} so far: how long calls were made to wait. */
  public Duration slept() {
    return Duration.ofNanos(slept.get());
  }

  /** Returns the reading and the total slept, for assertion messages. */
  @Override
  public String toString() {
    return "DrivenTicker[read=" + nanos.get() + "ns, slept=" + slept() + "]";
  }
}
