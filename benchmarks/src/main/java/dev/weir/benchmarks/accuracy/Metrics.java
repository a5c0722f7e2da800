package dev.weir.benchmarks.accuracy;

/** What the table reports, computed from ascending admission timestamps. */
final class Metrics {

  private Metrics() {
  }

  /**
   * The most admissions in any half-open span {@code [t, t + interval)}, over every real {@code t}.
   * The count only changes where {@code t} passes an admission, so the spans starting at each
   * admission cover every case (a two-pointer sweep).
   */
  static int worstSpan(long[] sorted, long intervalNanos) {
    int best = 0;
    int end = 0;
    for (int start = 0; start < sorted.length; start++) {
      while (end < sorted.length && sorted[end] - sorted[start] < intervalNanos) {
        end++;
      }
      best = Math.max(best, end - start);
    }
    return best;
  }

  /**
   * The most admissions in a window of {@code buckets} consecutive aligned buckets of
   * {@code interval / buckets} (bucket {@code k} covers {@code [k * width, (k + 1) * width)} of trace
   * time): what an engine counting in such a window promises to keep at or below its limit.
   */
  static int ownWindow(long[] sorted, long intervalNanos, int buckets) {
    if (sorted.length == 0) {
      return 0;
    }
    long width = intervalNanos / buckets;
    long first = Math.floorDiv(sorted[0], width);
    long last = Math.floorDiv(sorted[sorted.length - 1], width);
    int[] counts = new int[Math.toIntExact(last - first + 1)];
    for (long t : sorted) {
      counts[(int) (Math.floorDiv(t, width) - first)]++;
    }
    int best = 0;
    int sum = 0;
    for (int i = 0; i < counts.length; i++) {
      sum += counts[i];
      if (i >= buckets) {
        sum -= counts[i - buckets];
      }
      best = Math.max(best, sum);
    }
    return best;
  }

  /**
   * Admissions that proceed within the trace's span {@code [0, duration)}, per interval. A call that
   * waits past the end of the trace (queue modes) is not counted: the rate is what flows while the
   * trace runs.
   */
  static double rate(long[] sorted, long intervalNanos, long durationNanos) {
    int within = 0;
    while (within < sorted.length && sorted[within] < durationNanos) {
      within++;
    }
    return within / (durationNanos / (double) intervalNanos);
  }
}
