package dev.weir.internal.cluster;

/**
 * Rate estimation of a leased limiter: the permits this instance spends per nanosecond, measured at
 * each lease request from the permits spent since the last one.
 *
 * <p>Two figures. {@link #sample} is the last measurement alone: what blocks are sized by, the demand
 * sent to the store and the turn to cold go by, as before. {@link #rate} places the renewal mark of
 * a lease ({@link Lease}: renewed once what is left would last a round trip's high quantile twice
 * over at this rate): an exponentially weighted moving average of the samples whose weight grows
 * with the time a sample covers ({@code elapsed / tau}, at most 1, {@code tau} a lease's validity),
 * but never below the last sample. So the mark follows a rising rate at once (a renewal sent too late
 * leaves the calls waiting for it) and a falling one over about a validity, instead of following a
 * single slow sample (a request sent just after a pause) down to a renewal that comes too late when
 * the calls resume. Blocks keep following the sample: measured, an average that falls slowly sized
 * blocks up to 70 % above what a steady rate spends in half a validity, which the store then counts
 * for nothing.
 *
 * <p>Not thread-safe: only the thread sending a lease request measures (one round trip at a time).
 */
final class SpendRate {

  private final long tauNanos;
  private double sample;
  private double rate;
  private long measuredAt = Long.MIN_VALUE;
  private long spentAtMeasure;

  SpendRate(long tauNanos) {
    this.tauNanos = Math.max(1, tauNanos);
  }

  /**
   * Measures at {@code now} with {@code spentTotal} permits spent so far; returns whether a sample was
   * taken (not at the first measurement, not after {@link #restart}, not when no time passed).
   */
  boolean measure(long now, long spentTotal, boolean restarted) {
    long elapsed = now - measuredAt;
    boolean sampled = measuredAt != Long.MIN_VALUE && elapsed > 0 && !restarted;
    if (sampled) {
      // Never below 0: a permit refunded into the open lease after the last request counted it as
      // spent lowers spentTotal, and a negative rate would make a negative demand (an invalid request).
      sample = Math.max(0, (double) (spentTotal - spentAtMeasure) / elapsed);
      double weight = Math.min(1, (double) elapsed / tauNanos);
      rate = Math.max(sample, rate + weight * (sample - rate));
    }
    measuredAt = now;
    spentAtMeasure = spentTotal;
    return sampled;
  }

  /** The last sample, permits per nanosecond; 0 before the first. */
  double sample() {
    return sample;
  }

  /** The smoothed rate that sizes blocks, permits per nanosecond; 0 before the first sample. */
  double rate() {
    return rate;
  }
}
