package dev.weir.benchmarks.accuracy;

import java.util.Arrays;
import java.util.Random;

/**
 * A sequence of calls on a driven clock: at each step's instant (nanoseconds from the start of the
 * trace), each of {@code threads} threads makes {@code attemptsPerThread[step]} calls, with the
 * clock frozen until every thread is done. One thread makes a burst a run of calls at one instant.
 *
 * @param id the short name used in tables: a, b, c, d
 * @param title what the trace is, in a few words
 * @param durationNanos the span the trace covers, {@code [0, durationNanos)}; long-run rates divide by it
 * @param threads threads calling at every step
 * @param stepNanos the steps' instants, ascending
 * @param attemptsPerThread calls each thread makes at each step
 */
record Trace(String id, String title, long durationNanos, int threads, long[] stepNanos, int[] attemptsPerThread) {

  static final long MS = 1_000_000L;

  /** Every call of the trace, over all threads. */
  long attempts() {
    long sum = 0;
    for (int a : attemptsPerThread) {
      sum += a;
    }
    return sum * threads;
  }

  /** Calls per second over the trace, relative to {@code limit} per {@code intervalNanos}. */
  double offeredLoad(int limit, long intervalNanos) {
    return attempts() / (durationNanos / (double) intervalNanos) / limit;
  }

  /**
   * (a) Bursts at bucket edges. Every 3 s cycle holds, 1 ms before and exactly at each of three
   * edges, a burst of {@code 2 * limit} calls at one instant: at +1.0 s (a Weir 100 ms bucket edge,
   * a Sentinel 500 ms bucket edge, a Resilience4j cycle edge), at +1.5 s (Weir and Sentinel edges)
   * and at +1.9 s (a Weir edge). The rest of the cycle is quiet, so every limiter starts each cycle
   * idle. Every engine's clock has its bucket edges at whole multiples of their width on this
   * trace's time (they all start at trace time 0 or a whole number of seconds before it).
   */
  static Trace edgeBursts(int limit, long intervalNanos, long durationNanos) {
    long cycle = 3 * intervalNanos;
    long before = MS;
    long[] edges = {intervalNanos, intervalNanos * 3 / 2, intervalNanos * 19 / 10};
    long[] steps = new long[0];
    for (long start = 0; start < durationNanos; start += cycle) {
      for (long edge : edges) {
        for (long at : new long[] {start + edge - before, start + edge}) {
          if (at < durationNanos) {
            steps = Arrays.copyOf(steps, steps.length + 1);
            steps[steps.length - 1] = at;
          }
        }
      }
    }
    int[] attempts = new int[steps.length];
    Arrays.fill(attempts, 2 * limit);
    return new Trace("a", "bursts of 2N at bucket edges", durationNanos, 1, steps, attempts);
  }

  /** (b) Steady overload: one call every {@code interval / (10 * limit)}, ten times the limit. */
  static Trace steadyOverload(int limit, long intervalNanos, long durationNanos) {
    long spacing = intervalNanos / (10L * limit);
    int n = (int) (durationNanos / spacing);
    long[] steps = new long[n];
    for (int i = 0; i < n; i++) {
      steps[i] = i * spacing;
    }
    int[] attempts = new int[n];
    Arrays.fill(attempts, 1);
    return new Trace("b", "steady overload at 10x", durationNanos, 1, steps, attempts);
  }

  /**
   * (c) Poisson arrivals at twice the limit: exponential gaps drawn from {@code new Random(seed)}
   * (its algorithm is specified by the JDK, so the trace is the same on every JVM).
   */
  static Trace poisson(int limit, long intervalNanos, long durationNanos, long seed) {
    Random random = new Random(seed);
    double meanGapNanos = intervalNanos / (2.0 * limit);
    long[] steps = new long[(int) (durationNanos / meanGapNanos * 1.5) + 16];
    int n = 0;
    double t = 0;
    while (true) {
      t += -Math.log(1 - random.nextDouble()) * meanGapNanos;
      long at = (long) t;
      if (at >= durationNanos) {
        break;
      }
      if (n == steps.length) {
        steps = Arrays.copyOf(steps, n * 2);
      }
      steps[n++] = at;
    }
    steps = Arrays.copyOf(steps, n);
    int[] attempts = new int[n];
    Arrays.fill(attempts, 1);
    return new Trace("c", "Poisson arrivals at 2x", durationNanos, 1, steps, attempts);
  }

  /**
   * (d) Many threads at once: {@code threads} threads, a step every {@code stepNanos}, each thread
   * making {@code perThread} calls per step while the clock is frozen.
   */
  static Trace threads(long durationNanos, int threads, long stepNanos, int perThread) {
    int n = (int) (durationNanos / stepNanos);
    long[] steps = new long[n];
    for (int i = 0; i < n; i++) {
      steps[i] = i * stepNanos;
    }
    int[] attempts = new int[n];
    Arrays.fill(attempts, perThread);
    return new Trace("d", threads + " threads at once", durationNanos, threads, steps, attempts);
  }
}
