package dev.weir.internal.call;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A running high percentile of the costs calls settled at ({@code Entry.settle}): what the next
 * call's estimate should be. Fixed memory: a histogram of {@value #BUCKETS} logarithmic buckets, four
 * per power of two (so a bucket's upper edge is at most a quarter above any cost in it), counted with
 * one atomic add per settle and no lock.
 *
 * <p>It follows change: when the counts reach {@value #HALF_LIFE} in all, every bucket is halved,
 * so the costs of the last few thousand settles weigh most and a shift in costs shows within about
 * {@value #HALF_LIFE} settles. Halving races with adds, which may land before or after it: an add
 * is never lost, at worst halved once more or once less, which moves a percentile by a fraction of
 * one settle.
 *
 * <p>The estimate is the upper edge of the bucket where the percentile falls: it errs high, never
 * more than one bucket, which is what an estimate that is taken before a call should do.
 */
final class CostEstimate {

  /** Buckets: 0 holds cost 0; then four per power of two of a positive {@code long}. */
  static final int BUCKETS = 1 + 64 * 4;
  static final long HALF_LIFE = 4096;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
  private final AtomicLongArray total = new AtomicLongArray(1);

  void record(long cost) {
    counts.incrementAndGet(bucketOf(cost));
    if (total.incrementAndGet(0) >= HALF_LIFE) {
      halve();
    }
  }

  private synchronized void halve() {
    if (total.get(0) < HALF_LIFE) {
      return; // another thread halved meanwhile
    }
    long sum = 0;
    for (int i = 0; i < BUCKETS; i++) {
      long c = counts.get(i);
      sum += counts.addAndGet(i, (c >>> 1) - c); // adds racing in are kept
    }
    total.set(0, sum);
  }

  /**
   * The cost below which {@code quantile} of the recorded costs lie, rounded up to its bucket's
   * upper edge, or {@code fallback} when nothing was recorded.
   */
  long estimate(double quantile, long fallback) {
    // Two passes over the live counts, no copy (it allocates nothing: callers read it per call).
    // Adds and halvings racing with it move the answer by a bucket at most, never past the
    // last bucket that holds a cost.
    long sum = 0;
    for (int i = 0; i < BUCKETS; i++) {
      sum += counts.get(i);
    }
    if (sum == 0) {
      return fallback;
    }
    long rank = (long) Math.ceil(quantile * sum);
    long seen = 0;
    int last = 0;
    for (int i = 0; i < BUCKETS; i++) {
      long count = counts.get(i);
      if (count > 0) {
        last = i;
        seen += count;
        if (seen >= rank) {
          return upperEdge(i);
        }
      }
    }
    return upperEdge(last);
  }

  /** The bucket of {@code cost}: 0 for 0, else four per power of two. */
  static int bucketOf(long cost) {
    if (cost <= 0) {
      return 0;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(cost);
    int quarter = exponent < 2 ? (int) (cost - (1L << exponent)) << (2 - exponent) : (int) ((cost >>> (exponent - 2)) & 3);
    return 1 + exponent * 4 + quarter;
  }

  /** The largest cost of bucket {@code bucket}. */
  static long upperEdge(int bucket) {
    if (bucket == 0) {
      return 0;
    }
    int exponent = (bucket - 1) / 4;
    int quarter = (bucket - 1) % 4;
    if (exponent < 2) {
      // exact small costs: 1, 2, 3 are their own buckets (the quarters between are empty)
      return (1L << exponent) + ((long) quarter >> (2 - exponent));
    }
    long base = 1L << exponent;
    long step = base >>> 2;
    long edge = base + (quarter + 1) * step - 1;
    return edge < 0 ? Long.MAX_VALUE : edge;
  }
}
