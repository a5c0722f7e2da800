package dev.weir.benchmarks.accuracy;

/**
 * One limiter configuration under test: Weir in one of its modes, or a peer. {@link #start} builds a
 * fresh limiter of {@code limit} calls per {@code intervalNanos} on a clock the harness drives.
 */
record Engine(String key, String label, String setup, int ownWindowBuckets, Starter starter) {

  /*
   * key: a stable short name (table rows are in the order of Engines#all()); label: the row label;
   * setup: how it is configured and called, for the report; ownWindowBuckets: the buckets of the
   * window the engine itself counts in (aligned windows of that many buckets of interval / buckets),
   * or 0 when it has no window (pacing, token buckets).
   */

  /** Builds a fresh limiter of {@code limit} calls per {@code intervalNanos}. */
  @FunctionalInterface
  interface Starter {
    Run start(int limit, long intervalNanos);
  }

  /** Starts a fresh limiter whose clock reads trace time 0 (or a whole number of intervals before it). */
  Run start(int limit, long intervalNanos) {
    return starter.start(limit, intervalNanos);
  }

  /** A limiter being driven through one trace. Thread-safe where the trace has several threads. */
  interface Run extends AutoCloseable {

    /** Moves the clock to {@code traceNanos}. Called by one thread while no call is in progress. */
    void at(long traceNanos);

    /**
     * Makes one call at the current instant: {@code -1} when refused, otherwise the nanoseconds it
     * waited before proceeding (0 for at once; a wait is recorded, the clock does not move).
     */
    long attempt();

    /** Called once the calls of a step are done, before the clock moves again. */
    default void afterStep() {
    }

    @Override
    default void close() {
    }
  }

  /**
   * The driving of an engine's clock did not hold for this step (Resilience4j: a step took longer
   * than the margin that keeps the reading inside the right cycle); the harness runs the trace again.
   */
  static final class ClockSlipped extends RuntimeException {
    ClockSlipped(String message) {
      super(message);
    }
  }
}
