package dev.weir;

import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * {@code reject} for a QPS rule: at most {@code count} admissions in a sliding window of
 * {@value #BUCKETS} buckets covering {@code interval}, checked and counted in one CAS.
 *
 * <h2>Why not check, then add</h2>
 * Reading the window sum and then incrementing a bucket (as Sentinel does) lets every thread that
 * read the same sum pass: N threads overshoot by up to N - 1. Here each slot is one {@code long}
 * packing the bucket number (high 32 bits), a "sealed" flag (bit 31) and the bucket's count (low 31
 * bits), and admission is a CAS on the slot of the newest bucket.
 *
 * <h2>The sealing protocol</h2>
 * Invariant: every slot except the one holding the newest bucket is sealed, and a sealed slot's
 * count never grows. A thread that needs a newer bucket first seals the current newest slot (a CAS),
 * then installs the new bucket (another CAS). An admission reads all slots, sums the sealed ones
 * that lie inside the window, and CASes the unsealed newest slot from {@code c} to
 * {@code c + permits} only if {@code sum + c + permits <= count}. If a newer bucket was installed in
 * between, the newest slot was sealed first, so the CAS fails and the thread re-reads. At the
 * instant of a successful CAS the window therefore holds at most {@code count}; every window whose
 * last admission went into its newest bucket was checked whole, and every other window is contained
 * in an earlier checked one. So no window of this rule's accounting ever exceeds {@code count},
 * whatever the number of threads.
 *
 * <h2>What the bucketed window still allows</h2>
 * A bucketed sliding window bounds admissions per window of its own buckets, not per arbitrary
 * span: {@code count} admissions at the very end of bucket 0 and {@code count} more at the start of
 * bucket {@value #BUCKETS} (when bucket 0 leaves the window) fall inside one span of
 * {@code interval - interval/BUCKETS + epsilon}, so up to {@code 2 * count} pass in less than one
 * interval, whatever the number of buckets. {@link ExactLimiter} ({@code exact: true}) removes this
 * by remembering the time of each of the last {@code count} admissions.
 *
 * <h2>Clock skew between threads</h2>
 * A thread whose reading is older than the newest bucket (it read the ticker, then was descheduled)
 * counts into the newest bucket instead: accounting stays consistent and the thread is never
 * refused for being late. A ticker that jumps back by more than a window makes the newer slots
 * look like garbage; they are treated as expired so the rule recovers at once.
 */
final class WindowLimiter extends FlowLimiter {

  static final int BUCKETS = 10;
  private static final int STRIDE = 8;
  private static final long SEALED = 1L << 31;
  private static final long COUNT_MASK = SEALED - 1;

  private final long bucketNanos;
  private final long limit;
  /**
   * The slots, one per 64-byte cache line ({@link #STRIDE} longs apart, with a line of padding
   * before the first): the slot being counted is written on every admission, and must not share a
   * line with the fields every admission reads, nor with the other slots.
   */
  private final AtomicLongArray slots = new AtomicLongArray((BUCKETS + 2) * STRIDE);
  /** The bucket number of the last reading and where its period starts: saves a long division per call. */
  private volatile Span lastSpan = new Span(Long.MIN_VALUE, 0);

  private record Span(long start, long index) {
  }

  /**
   * The newest bucket, its slot, and the sum of the other buckets of its window. Those are sealed,
   * so the sum can only be too high (a refund lowered one), never too low: admitting against it is
   * safe. Lets an admission read three words and CAS once instead of scanning every slot.
   */
  private volatile @Nullable View view;

  private record View(long target, int slot, long sealedSum) {
  }

  WindowLimiter(long intervalNanos, double count, long now) {
    this.bucketNanos = intervalNanos / BUCKETS;
    this.limit = (long) Math.floor(count);
    // Sealed, empty, and a whole window in the past: no reading near "now" can mistake it for live.
    long stale = ((Math.floorDiv(now, bucketNanos) - BUCKETS) << 32) | SEALED;
    for (int i = 0; i < BUCKETS; i++) {
      slots.set(at(i), stale);
    }
  }

  @Override
  long tryAcquire(int permits, long now) {
    long nowIndex = bucketOf(now);
    View cached = view;
    while (cached != null) {
      long behind = cached.target - nowIndex;
      if (behind < 0 || behind >= BUCKETS) {
        break; // time moved past the cached bucket (or went back): the full path installs the next
      }
      long current = slots.get(at(cached.slot));
      if (bucket(current) != (int) cached.target || (current & SEALED) != 0
          || cached.sealedSum + (current & COUNT_MASK) + permits > limit) {
        break; // sealed, replaced, or full: the full path decides, with retry-after from fresh counts
      }
      if (slots.compareAndSet(at(cached.slot), current, current + permits)) {
        return ((long) cached.slot << 32) | (cached.target & 0xFFFF_FFFFL);
      }
    }
    while (true) {
      // The newest bucket no more than a window ahead of our reading (further ahead = clock went back).
      long target = nowIndex;
      for (int i = 0; i < BUCKETS; i++) {
        int ahead = bucket(slots.get(at(i))) - (int) nowIndex;
        if (ahead > 0 && ahead < BUCKETS && nowIndex + ahead > target) {
          target = nowIndex + ahead;
        }
      }
      int slot = (int) Math.floorMod(target, (long) BUCKETS);
      long current = slots.get(at(slot));
      if (bucket(current) == (int) target) {
        if ((current & SEALED) != 0) {
          // Someone is installing a newer bucket, or this is garbage from a clock that went back:
          // help by moving one bucket on. The call is counted a little early, never lost.
          install(target + 1);
          continue;
        }
        long others = sumOthers(slot, (int) target);
        View known = view;
        if (known == null || known.target != target) {
          view = new View(target, slot, others);
        }
        long count = current & COUNT_MASK;
        if (others + count + permits > limit) {
          return refused(retryAfter(target, others + count, permits, now));
        }
        if (slots.compareAndSet(at(slot), current, current + permits)) {
          return ((long) slot << 32) | (target & 0xFFFF_FFFFL);
        }
      } else {
        install(target);
      }
    }
  }

  private long bucketOf(long now) {
    Span span = lastSpan;
    long into = now - span.start;
    if (into >= 0 && into < bucketNanos) {
      return span.index;
    }
    long index = Math.floorDiv(now, bucketNanos);
    lastSpan = new Span(index * bucketNanos, index);
    return index;
  }

  /** Seals every unsealed slot, then installs an empty unsealed bucket {@code index}; may lose races. */
  private void install(long index) {
    for (int i = 0; i < BUCKETS; i++) {
      long value = slots.get(at(i));
      if ((value & SEALED) == 0 && bucket(value) != (int) index
          && !slots.compareAndSet(at(i), value, value | SEALED)) {
        return; // the slot changed under us: let the caller re-read everything
      }
    }
    int slot = (int) Math.floorMod(index, (long) BUCKETS);
    long value = slots.get(at(slot));
    if (bucket(value) != (int) index) {
      slots.compareAndSet(at(slot), value, (index << 32) & 0xFFFF_FFFF_0000_0000L);
    }
  }

  /** Sum of the counts of the other slots inside the window that ends with bucket {@code target}. */
  private long sumOthers(int targetSlot, int target) {
    long sum = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (i != targetSlot) {
        long value = slots.get(at(i));
        int age = target - bucket(value);
        if (age > 0 && age < BUCKETS) {
          sum += value & COUNT_MASK;
        }
      }
    }
    return sum;
  }

  /** Time until enough of the oldest buckets leave the window to admit {@code permits}; 0 if never. */
  private long retryAfter(long target, long inWindow, int permits, long now) {
    if (permits > limit) {
      return 0;
    }
    long freed = 0;
    for (long index = target - BUCKETS + 1; index <= target; index++) {
      long value = slots.get(at((int) Math.floorMod(index, (long) BUCKETS)));
      if (bucket(value) == (int) index) {
        freed += value & COUNT_MASK;
      }
      if (inWindow - freed + permits <= limit) {
        return (index + BUCKETS) * bucketNanos - now;
      }
    }
    return (target + 1) * bucketNanos - now;
  }

  @Override
  void refund(int permits, long token) {
    int slot = (int) (token >>> 32);
    int index = (int) token;
    while (true) {
      long value = slots.get(at(slot));
      // Lowering a count, sealed or not, only makes later checks more permissive by what was
      // never used; it can never let a window exceed the limit.
      if (bucket(value) != index || (value & COUNT_MASK) < permits
          || slots.compareAndSet(at(slot), value, value - permits)) {
        return;
      }
    }
  }

  private static int at(int slot) {
    return (slot + 1) * STRIDE;
  }

  private static int bucket(long value) {
    return (int) (value >>> 32);
  }
}
