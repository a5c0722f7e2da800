package dev.weir.internal.call;

import dev.weir.internal.time.LeapArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One period of a statistics window, holding the node's cumulative totals as they were when the
 * period's first event arrived (its {@code base}), and the smallest response time seen in it.
 *
 * <p>Counts of a period are differences of bases: what passed in the window ending now is
 * {@code passed(now) - oldestBucketInWindow.passed}. The hot path therefore adds only to the node's
 * cumulative counters (the thread's cell of them) and never to a bucket (see {@link StatisticNode}).
 */
final class StatBucket extends LeapArray.Bucket {

  final long passed;
  final long blocked;
  final long succeeded;
  final long failed;
  final long rtNanos;
  final AtomicLong minRtNanos = new AtomicLong(Long.MAX_VALUE);

  StatBucket(long index, StatisticNode totals) {
    super(index);
    // Blocked first, passed last: a call counted in "passed" after this snapshot may complete
    // before the completion counters are read, never the other way round. Each total is a sum of
    // cells read with acquire loads, and writers store with release, so a completion seen here
    // brings the pass that preceded it into the later read of "passed" (see StatisticNode).
    this.blocked = totals.blockedTotal();
    this.succeeded = totals.succeededTotal();
    this.failed = totals.failedTotal();
    this.rtNanos = totals.rtNanosTotal();
    this.passed = totals.passedTotal();
  }

  void addRt(long nanos) {
    // Read first: the common case (not a new minimum) costs no write.
    long min = minRtNanos.get();
    while (nanos < min && !minRtNanos.compareAndSet(min, nanos)) {
      min = minRtNanos.get();
    }
  }
}
