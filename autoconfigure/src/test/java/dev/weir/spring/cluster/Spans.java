package dev.weir.spring.cluster;

import java.util.List;

/** The bound of an exact window, checked on a trace of admission times. */
final class Spans {

  private Spans() {
  }

  /**
   * The most admissions any half-open span {@code [t, t + window)} holds: for each admission, those
   * at most {@code window - 1} later (two pointers over the sorted times).
   */
  static int mostInAnySpan(List<Long> times, long window) {
    long[] sorted = times.stream().mapToLong(Long::longValue).sorted().toArray();
    int most = 0;
    int end = 0;
    for (int start = 0; start < sorted.length; start++) {
      if (end < start) {
        end = start;
      }
      while (end < sorted.length && sorted[end] - sorted[start] < window) {
        end++;
      }
      most = Math.max(most, end - start);
    }
    return most;
  }
}
