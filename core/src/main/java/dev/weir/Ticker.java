package dev.weir;

/**
 * The time source of an engine: a monotonic reading in nanoseconds, like {@link System#nanoTime()}.
 *
 * <p>Only differences between two readings are meaningful. Implementations must be thread-safe and
 * cheap. An engine built without a ticker of its own reads {@link #system()} on a thread of its own
 * once a millisecond, and calls read that reading, except where a rule needs sub-millisecond time
 * (see {@code Weir.Builder.clockResolution}); a ticker given to the builder is read on every call,
 * so a test that drives a ticker by hand drives every reading of the engine, and every time-based
 * rule can be checked without sleeping.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current reading in nanoseconds. */
  long read();

  /** Returns the ticker backed by {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
