package dev.weir;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts of one time bucket of a {@link LeapArray}. Its {@link #index} (the bucket number since
 * the ticker's origin) is fixed at creation: a bucket is never reused for another period, it is
 * replaced. Counters are {@link LongAdder}s so that many writers do not contend on one word.
 */
final class StatBucket extends LeapArray.Bucket {

  final LongAdder pass = new LongAdder();
  final LongAdder block = new LongAdder();
  final LongAdder success = new LongAdder();
  final LongAdder exception = new LongAdder();
  /** Sum of the response times of completed calls (succeeded and failed), in nanoseconds. */
  final LongAdder rtNanos = new LongAdder();
  final AtomicLong minRtNanos = new AtomicLong(Long.MAX_VALUE);

  StatBucket(long index) {
    super(index);
  }

  void addRt(long nanos) {
    rtNanos.add(nanos);
    // Read first: the common case (not a new minimum) costs no write.
    long min = minRtNanos.get();
    while (nanos < min && !minRtNanos.compareAndSet(min, nanos)) {
      min = minRtNanos.get();
    }
  }
}
