package dev.weir.internal.time;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A sliding window of {@code sampleCount} time buckets covering {@code intervalNanos}, driven by the
 * engine's ticker.
 *
 * <p>Bucket {@code i} covers {@code [i * bucketNanos, (i + 1) * bucketNanos)} and lives in slot
 * {@code i mod sampleCount}. Writers find the bucket of "now" with one volatile read; when the slot
 * still holds an older period the writer installs a fresh bucket with one CAS. A stale bucket is
 * therefore never reset in place: it is replaced, so a reader never sees half-cleared counters and
 * no writer ever waits on a lock.
 *
 * <p>Race: a writer may still be adding to a bucket at the moment another thread replaces it. The
 * replaced bucket belongs to a period at least one whole window old for the replacing thread, so
 * that count is outside every window read from then on; nothing in force is lost. Counts that must
 * be conserved (total passed, blocked, ...) are kept apart in {@link StatisticNode}'s cumulative
 * counters, which no rollover touches.
 *
 * <p>A reading older than the bucket in its slot comes from a writer that was descheduled between
 * reading the ticker and writing, or from a ticker that went back. Up to {@value #STALE_LIMIT_NANOS}
 * ns behind, it is taken for a late writer: it gets a detached bucket, so its count leaves the window
 * (which has moved on) and the newer bucket is not destroyed. Further behind, it is taken for a
 * clock that went back: the slot is taken over by the older period, so statistics recover at once
 * instead of freezing until the clock catches up.
 */
public final class LeapArray<B extends LeapArray.Bucket> {

  /** A bucket of a window: knows its period; the counters are the subclass's. */
  public abstract static class Bucket {
    final long index;
    /** Start of the period, in ticker nanoseconds; set by the array that installs the bucket. */
    long start;

    public Bucket(long index) {
      this.index = index;
    }
  }


  /** How far behind its slot a reading may be and still be taken for a late writer: one minute. */
  static final long STALE_LIMIT_NANOS = 60_000_000_000L;

  private final int sampleCount;
  private final long bucketNanos;
  private final AtomicReferenceArray<B> buckets;
  private final LongFunction<B> newBucket;
  /**
   * The bucket most recently returned by {@link #current}: calls within its period (nearly all of
   * them) find it with two comparisons instead of two long divisions. A stale value only sends the
   * caller down the slow path; it is never wrong, because a bucket's period never changes.
   */
  private volatile @Nullable B last;

  public LeapArray(int sampleCount, long intervalNanos, LongFunction<B> newBucket) {
    if (sampleCount < 1 || intervalNanos % sampleCount != 0) {
      throw new IllegalArgumentException("interval " + intervalNanos + "ns is not divisible into " + sampleCount + " buckets");
    }
    this.sampleCount = sampleCount;
    this.bucketNanos = intervalNanos / sampleCount;
    this.buckets = new AtomicReferenceArray<>(sampleCount);
    this.newBucket = newBucket;
  }

  /** Returns the bucket that counts events at {@code now}. */
  public B current(long now) {
    B cached = last;
    if (cached != null) {
      long into = now - cached.start;
      if (into >= 0 && into < bucketNanos) {
        return cached;
      }
    }
    B bucket = locate(now);
    last = bucket;
    return bucket;
  }

  private B locate(long now) {
    long index = Math.floorDiv(now, bucketNanos);
    int slot = (int) Math.floorMod(index, (long) sampleCount);
    while (true) {
      B bucket = buckets.get(slot);
      if (bucket != null && bucket.index == index) {
        return bucket;
      }
      if (bucket == null || bucket.index < index || (bucket.index - index) * bucketNanos > STALE_LIMIT_NANOS) {
        B fresh = newBucket.apply(index);
        fresh.start = index * bucketNanos;
        if (buckets.compareAndSet(slot, bucket, fresh)) {
          return fresh;
        }
        // Another writer installed a bucket first: read the slot again.
      } else {
        B detached = newBucket.apply(index);
        detached.start = index * bucketNanos;
        return detached;
      }
    }
  }

  /** Empties every bucket: the window starts afresh. */
  public void clear() {
    for (int i = 0; i < sampleCount; i++) {
      buckets.set(i, null);
    }
    last = null;
  }

  /** Returns the sum of {@code counter} over the buckets of the window that ends at {@code now}. */
  public long sum(long now, ToLongFunction<? super B> counter) {
    long newest = Math.floorDiv(now, bucketNanos);
    long sum = 0;
    for (int i = 0; i < sampleCount; i++) {
      B bucket = buckets.get(i);
      if (bucket != null && inWindow(bucket, newest)) {
        sum += counter.applyAsLong(bucket);
      }
    }
    return sum;
  }

  /** Returns the smallest of {@code value} over the window, or {@code Long.MAX_VALUE} when empty. */
  public long min(long now, ToLongFunction<? super B> value) {
    long newest = Math.floorDiv(now, bucketNanos);
    long min = Long.MAX_VALUE;
    for (int i = 0; i < sampleCount; i++) {
      B bucket = buckets.get(i);
      if (bucket != null && inWindow(bucket, newest)) {
        min = Math.min(min, value.applyAsLong(bucket));
      }
    }
    return min;
  }

  /** Returns the oldest bucket of the window that ends at {@code now}, or null when it is empty. */
  public @Nullable B oldest(long now) {
    long newest = Math.floorDiv(now, bucketNanos);
    B oldest = null;
    for (int i = 0; i < sampleCount; i++) {
      B bucket = buckets.get(i);
      if (bucket != null && inWindow(bucket, newest) && (oldest == null || bucket.index < oldest.index)) {
        oldest = bucket;
      }
    }
    return oldest;
  }

  /**
   * For buckets that snapshot a growing total: the largest growth of that total within one bucket
   * of the window, the newest bucket growing up to {@code totalNow}. Gaps (periods without a bucket)
   * had no events.
   */
  public long maxDelta(long now, long totalNow, ToLongFunction<? super B> base) {
    List<@Nullable B> ordered = window(now);
    long max = 0;
    long next = totalNow;
    for (int i = ordered.size() - 1; i >= 0; i--) {
      B bucket = ordered.get(i);
      if (bucket != null) {
        long start = base.applyAsLong(bucket);
        max = Math.max(max, next - start);
        next = start;
      }
    }
    return max;
  }

  /**
   * Returns the buckets of the window ending at {@code now}, oldest first; an element is null where
   * the period had no traffic.
   */
  public List<@Nullable B> window(long now) {
    long newest = Math.floorDiv(now, bucketNanos);
    List<@Nullable B> out = new ArrayList<>(Collections.nCopies(sampleCount, null));
    for (int i = 0; i < sampleCount; i++) {
      B bucket = buckets.get(i);
      if (bucket != null && inWindow(bucket, newest)) {
        out.set((int) (bucket.index - (newest - sampleCount + 1)), bucket);
      }
    }
    return out;
  }

  private boolean inWindow(Bucket bucket, long newest) {
    return bucket.index <= newest && bucket.index > newest - sampleCount;
  }
}
