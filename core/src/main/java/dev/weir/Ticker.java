package dev.weir;

/**
 * The time source of an engine: a monotonic reading in nanoseconds, like {@link System#nanoTime()}.
 *
 * <p>Only differences between two readings are meaningful. Implementations must be thread-safe and
 * cheap: the engine reads the ticker once when a call enters and once when it completes. Tests
 * inject a ticker they drive by hand, so that every time-based rule can be checked without sleeping.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current reading in nanoseconds. */
  long read();

  /** Returns the ticker backed by {@link System#nanoTime()} (always the same instance). */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }
}
