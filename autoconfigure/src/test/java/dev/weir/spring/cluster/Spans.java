package dev.weir.spring.cluster;

import java.util.List;

/**
 * The bound of an exact window, checked on a trace of admission times: times a store stamped its
 * decisions with, or, for decisions made in this JVM, the interval of {@code System.nanoTime()}
 * readings around each call ({@link Call}), which holds the decision whatever the machine's load did
 * to the call.
 */
final class Spans {

  private Spans() {
  }

  /** A call known by the readings before and after it: its decision was made in between. */
  record Call(long began, long ended) {
  }

  /**
   * The most admissions surely decided within one half-open span {@code [t, t + window)}: for each
   * call, those that began no earlier and ended before its beginning plus {@code window}. An exact
   * window of {@code count} per {@code window} keeps this at most {@code count}; calls the machine
   * made slow are simply not surely inside, so the bound holds on any machine, and on an idle one
   * it is as tight as on the decisions themselves.
   */
  static int mostSurelyInAnySpan(List<Call> admitted, long window) {
    int most = 0;
    for (Call from : admitted) {
      int inside = 0;
      for (Call call : admitted) {
        if (call.began - from.began >= 0 && call.ended - (from.began + window) < 0) {
          inside++;
        }
      }
      most = Math.max(most, inside);
    }
    return most;
  }

  /**
   * The refusals an exact window of {@code count} per {@code window} could not have made: a refusal
   * finds {@code count} admissions in the {@code window} before its decision, and each of those
   * ended after the refusal began less {@code window}, and began before the refusal ended.
   */
  static List<Call> unjustifiedRefusals(List<Call> admitted, List<Call> refused, long window, int count) {
    List<Call> unjustified = new java.util.ArrayList<>();
    for (Call refusal : refused) {
      int before = 0;
      for (Call call : admitted) {
        if (call.ended - (refusal.began - window) > 0 && call.began - refusal.ended <= 0) {
          before++;
        }
      }
      if (before < count) {
        unjustified.add(refusal);
      }
    }
    return unjustified;
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
