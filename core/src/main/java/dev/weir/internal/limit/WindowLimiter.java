package dev.weir.internal.limit;

import dev.weir.internal.time.EngineClock;
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
 * <h2>The protocol</h2>
 * Invariants, for the newest bucket {@code H} (published in {@code buckets.head}):
 * <ol>
 *   <li>slot {@code i} holds the one bucket {@code b} of the window {@code (H - BUCKETS, H]} with
 *       {@code b == i (mod BUCKETS)}, so a slot never holds a bucket outside the window and 32-bit
 *       bucket numbers never alias;
 *   <li>every slot but {@code H}'s is sealed, and a sealed slot's count never grows (a refund may
 *       lower it);
 *   <li>{@code head.sealedSum} is at least the sum of the sealed slots.
 * </ol>
 * An admission CASes {@code H}'s slot from {@code c} to {@code c + permits} only if it is unsealed,
 * still holds {@code H}, and {@code sealedSum + c + permits <= count}. Moving to a newer bucket
 * ({@link #advance}, under the buckets' lock, once per bucket) first seals {@code H}'s slot, then
 * re-labels the other slots for the new window (emptying those that leave it), sums the sealed
 * ones, installs the new bucket open, and publishes the new head last. An admission that CASes
 * {@code H}'s slot therefore lands before the seal, and is included in the next head's sum; one
 * that finds the slot sealed waits on the lock for the mover to finish. At the instant of every
 * successful CAS the window ending at {@code H} holds at most {@code count}, and every other window
 * of the rule's buckets is contained in one that was checked when it was newest.
 *
 * <h2>Late readings (see {@link EngineClock})</h2>
 * A reading in a bucket older than {@code H} is late: the thread read the clock, then others moved
 * the window on. It takes a fresh reading, which is at least as new as the one that installed
 * {@code H}, and decides on that, so a call is always counted in the bucket of the reading it was
 * decided on. Only if the ticker itself stepped back (a fresh reading still older than {@code H})
 * is the call counted into {@code H}. Nothing is ever rewound or cleared, so no reading, however
 * old, can make the window admit more than {@code count}, and every loop below ends: each retry
 * follows another thread's successful CAS or a newer head.
 *
 * <h2>Credits: many threads on one large limit</h2>
 * One CAS per admission on one slot serialises every thread on one cache line. While the window has
 * plenty left ({@link #LEASE_FLOOR} permits or more after this call), an admission that CASes the
 * slot takes {@link #LEASE} permits more and keeps them as a credit in a cell of its own thread
 * ({@link #credits}: {@value #CELLS} cells, each on its own line, chosen by thread id); the thread's
 * next admissions in the same bucket spend the credit with a CAS on that cell, which no other thread
 * writes unless two threads share a cell. A cell holds the bucket number (high 32 bits) and the
 * credit (low 32 bits); a credit is spent only at a reading in that bucket.
 * <ul>
 *   <li>The bound still holds: a credit was counted in its bucket's slot by the CAS that checked the
 *       window, before any of it was spent, and each permit of it is spent once (a cell CAS), at a
 *       reading in that bucket. So every window of the rule's buckets counts every admission in it,
 *       and was checked to hold at most {@code count} when its newest bucket was newest. That a
 *       spending thread may find the head moved on meanwhile changes nothing: the admission's reading
 *       is in the credit's bucket, which counted it.
 *   <li>Near the limit the window is exact: with fewer than {@link #LEASE_FLOOR} permits left after
 *       the call, nothing is leased and each admission is one CAS on the slot, as above. A rule whose
 *       {@code count} is below {@link #LEASE_FLOOR} never leases.
 *   <li>What a credit can cost: permits leased but not spent stay counted until their bucket leaves
 *       the window; a thread that comes back in a later bucket gives its old credit back to its
 *       bucket (a refund). So a window can admit up to {@value #CELLS} x {@value #LEASE} = 512 fewer
 *       than {@code count} when the threads holding credits stop calling; it never admits more.
 *   <li>A rule whose count changes ({@link #withCount}) keeps the buckets and drops the credits: the
 *       new limit is checked afresh; credits of the old limit stay counted and unspent.
 * </ul>
 *
 * <h2>Settling ({@code Entry.settle})</h2>
 * A call that settles below its estimate gives the difference back to the bucket it was counted in
 * (while that bucket is in the window; after, it no longer counts anyway), after first lowering a
 * debt owed. One that settles above it owes the excess: it is counted into the newest bucket in full
 * (one CAS on its slot) when the window holds less than {@code count} and nothing is owed yet, else
 * it is added to the {@link Debt}. While a debt is owed, an admission first takes as much
 * of it as the window has room for (never above {@code count}), and is refused while some is left.
 * So every count into a window's newest bucket starts below {@code count} (a debt taken in full) or
 * ends at most at {@code count} (an admission, a piece of debt): a window of the rule's buckets
 * counts at most {@code count - 1 + the largest excess of one call}. Refunds only lower counts. An
 * admission pays one volatile read of the debt for this while nothing is owed.
 *
 * <h2>What the bucketed window still allows</h2>
 * A bucketed sliding window bounds admissions per window of its own buckets, not per arbitrary
 * span: {@code count} admissions at the very end of bucket 0 and {@code count} more at the start of
 * bucket {@value #BUCKETS} (when bucket 0 leaves the window) fall inside one span of
 * {@code interval - interval/BUCKETS + epsilon}, so up to {@code 2 * count} pass in less than one
 * interval, whatever the number of buckets. {@link ExactLimiter} ({@code exact: true}) removes this
 * by remembering the time of each of the last {@code count} admissions.
 */
public final class WindowLimiter extends FlowLimiter {

  static final int BUCKETS = 10;
  private static final int STRIDE = 8;
  private static final long SEALED = 1L << 31;
  private static final long COUNT_MASK = SEALED - 1;
  /** Cells of credits, a power of two; see the class comment. */
  static final int CELLS = 8;
  /** Permits leased to a thread's cell by one CAS on the slot. */
  static final int LEASE = 64;
  /** Leases are made only while at least this many permits stay in the window after the call. */
  static final long LEASE_FLOOR = 8L * CELLS * LEASE;
  private static final long CREDIT_MASK = 0xFFFF_FFFFL;

  private final long limit;
  private final Buckets buckets;
  /** Credits per thread cell, made at the first lease; null while none was made. */
  private volatile @Nullable AtomicLongArray credits;

  /**
   * The window itself, apart from the limit: a rule whose {@code count} changes keeps it, so the
   * admissions of the current window still count against the new limit. Its lock guards
   * {@link WindowLimiter#advance}.
   */
  private static final class Buckets {
    final long bucketNanos;
    final EngineClock clock;
    /**
     * The slots, one per 64-byte cache line ({@link #STRIDE} longs apart, with a line of padding
     * before the first): the slot being counted is written on every admission, and must not share
     * a line with the fields every admission reads, nor with the other slots.
     */
    final AtomicLongArray slots = new AtomicLongArray((BUCKETS + 2) * STRIDE);
    /** The bucket number of the last reading and where its period starts: saves a long division per call. */
    volatile Span lastSpan = new Span(Long.MIN_VALUE, 0);
    /** The newest bucket, its slot, and (at least) the sum of the other buckets of its window. */
    volatile Head head;
    /** Permits owed by calls that settled above their estimate; a count change keeps it with the window. */
    final Debt debt = new Debt();

    Buckets(long bucketNanos, EngineClock clock, long now) {
      this.bucketNanos = bucketNanos;
      this.clock = clock;
      long index = Math.floorDiv(now, bucketNanos);
      for (int i = 0; i < BUCKETS; i++) {
        long bucket = bucketOfSlot(index, i);
        slots.set(at(i), bucket == index ? pack(bucket) : pack(bucket) | SEALED);
      }
      this.head = new Head(index, slotOf(index), 0);
    }
  }

  private record Span(long start, long index) {
  }

  private record Head(long index, int slot, long sealedSum) {
  }

  public WindowLimiter(long intervalNanos, double count, EngineClock clock, long now) {
    this((long) Math.floor(count), new Buckets(intervalNanos / BUCKETS, clock, now));
  }

  private WindowLimiter(long limit, Buckets buckets) {
    this.limit = limit;
    this.buckets = buckets;
  }

  @Override
  public @Nullable FlowLimiter withCount(double count) {
    return new WindowLimiter((long) Math.floor(count), buckets);
  }

  @Override
  public long tryAcquire(int permits, long now) {
    if (permits > limit) {
      return refused(0); // never: count 0, or more permits than a window holds
    }
    long nowIndex = bucketOf(now);
    boolean fresh = false;
    while (true) {
      Head h = buckets.head;
      if (nowIndex > h.index) {
        advance(nowIndex);
        continue;
      }
      if (nowIndex < h.index && !fresh) {
        // Late: decide on a fresh reading (at least as new as the one that installed h).
        now = buckets.clock.readFresh();
        nowIndex = bucketOf(now);
        fresh = nowIndex < h.index; // still older: the ticker stepped back; count into h from here on
        continue;
      }
      if (buckets.debt.owed() > 0) {
        int paid = payDebt(h);
        if (paid == RETRY) {
          awaitAdvance();
          continue;
        }
        if (paid == OWING) {
          return refused((h.index + 1) * buckets.bucketNanos - Math.max(now, h.index * buckets.bucketNanos));
        }
      }
      AtomicLongArray cells = credits;
      if (cells != null) {
        int cell = at(cellOf(Thread.currentThread()));
        long credit = cells.get(cell);
        if (bucket(credit) == (int) h.index && (credit & CREDIT_MASK) >= permits) {
          if (cells.compareAndSet(cell, credit, credit - permits)) {
            return token(h.slot, h.index);
          }
          continue; // another thread of this cell spent from it: look again
        }
      }
      long current = buckets.slots.get(at(h.slot));
      if ((current & SEALED) != 0 || bucket(current) != (int) h.index) {
        awaitAdvance();
        continue;
      }
      long count = current & COUNT_MASK;
      long used = h.sealedSum + count;
      if (used + permits > limit) {
        // Refunds may have lowered the sealed buckets since the head was published: count afresh.
        used = sumOthers(h) + count;
        if (used + permits > limit) {
          return refused(retryAfter(h, used, permits, now));
        }
      }
      long lease = permits <= LEASE && limit - used - permits >= LEASE_FLOOR ? LEASE : 0;
      // The cells exist before the CAS: once it succeeds nothing may throw (the permits it counted
      // would stay taken, neither held by the call nor refunded).
      AtomicLongArray leaseCells = lease > 0 ? cells() : null;
      if (buckets.slots.compareAndSet(at(h.slot), current, current + permits + lease)) {
        if (leaseCells != null) {
          keep(leaseCells, h, lease);
        }
        return token(h.slot, h.index);
      }
    }
  }

  /**
   * Puts {@code lease} permits, counted in {@code h}'s slot, in this thread's cell. A credit of the
   * same bucket already there is added to; one of an older bucket is given back to its bucket. The
   * loop ends: each failed CAS follows another thread's write to the cell, and a thread writes it at
   * most once per admission.
   */
  private void keep(AtomicLongArray cells, Head h, long lease) {
    int cell = at(cellOf(Thread.currentThread()));
    while (true) {
      long old = cells.get(cell);
      boolean same = bucket(old) == (int) h.index;
      long credit = (same ? old & CREDIT_MASK : 0) + lease;
      if (cells.compareAndSet(cell, old, pack(h.index) | credit)) {
        long stale = old & CREDIT_MASK;
        if (!same && stale > 0) {
          // Back to its bucket, if that bucket is still in its slot (refund checks the label).
          long index = h.index - ((int) h.index - bucket(old));
          refund((int) stale, token(slotOf(index), index));
        }
        return;
      }
    }
  }

  /** The credit cells, made at the first lease. */
  private AtomicLongArray cells() {
    AtomicLongArray cells = credits;
    if (cells == null) {
      synchronized (this) {
        cells = credits;
        if (cells == null) {
          credits = cells = new AtomicLongArray((CELLS + 2) * STRIDE);
        }
      }
    }
    return cells;
  }

  /** The cell of {@code thread}: its id, spread by a multiplicative hash. */
  private static int cellOf(Thread thread) {
    return (int) ((thread.getId() * 0x9E37_79B9_7F4A_7C15L) >>> 61) & (CELLS - 1);
  }

  private static long token(int slot, long index) {
    return ((long) slot << 32) | (index & 0xFFFF_FFFFL);
  }

  private long bucketOf(long now) {
    Span span = buckets.lastSpan;
    long into = now - span.start;
    if (into >= 0 && into < buckets.bucketNanos) {
      return span.index;
    }
    long index = Math.floorDiv(now, buckets.bucketNanos);
    buckets.lastSpan = new Span(index * buckets.bucketNanos, index);
    return index;
  }

  /**
   * The newest slot is sealed or re-labelled: another thread is inside {@link #advance}, which holds
   * this lock until it has published the new head. Taking the lock waits for exactly that.
   */
  private void awaitAdvance() {
    synchronized (buckets) {
      // nothing to do: the mover has finished once we get here
    }
  }

  /** Makes {@code target} the newest bucket unless a newer one already is; see the class comment. */
  private void advance(long target) {
    synchronized (buckets) {
      advanceLocked(target);
    }
  }

  private void advanceLocked(long target) {
    Head h = buckets.head;
    if (target <= h.index) {
      return;
    }
    // 1. Seal the newest bucket: admissions that got in before the seal are in the count we read.
    while (true) {
      long value = buckets.slots.get(at(h.slot));
      if ((value & SEALED) != 0 || buckets.slots.compareAndSet(at(h.slot), value, value | SEALED)) {
        break;
      }
    }
    // 2. Re-label every slot for the window ending at target: keep the buckets still inside it,
    //    empty the rest. Slot values are 32-bit bucket numbers of the window ending at h, so the
    //    full number is recovered from h before comparing.
    long sealedSum = 0;
    int targetSlot = slotOf(target);
    for (int i = 0; i < BUCKETS; i++) {
      if (i == targetSlot) {
        continue;
      }
      long wanted = bucketOfSlot(target, i);
      long value = buckets.slots.get(at(i));
      long held = h.index - ((int) h.index - bucket(value));
      if (held == wanted) {
        sealedSum += value & COUNT_MASK;
      } else {
        buckets.slots.set(at(i), pack(wanted) | SEALED);
      }
    }
    // 3. Install the new bucket open, then publish it.
    buckets.slots.set(at(targetSlot), pack(target));
    buckets.head = new Head(target, targetSlot, sealedSum);
  }

  /**
   * The window ending at {@code now}'s bucket: the count less the permits counted in its buckets
   * (credits leased to threads and not yet spent count as taken), and the time until enough of its
   * oldest buckets have left the window for one permit more.
   *
   * <p>At a reading in bucket {@code k}, calls of one permit are admitted while the buckets
   * {@code (k - BUCKETS, k]} hold less than {@code limit}. With {@code used} counted now and
   * {@code remaining = max(0, limit - used)}, {@code remaining + 1} of them fit once the buckets
   * that have left the window held {@code needed = max(0, used - limit) + 1}: walking from the
   * oldest bucket of the window, the first bucket {@code b} at which the buckets up to it hold
   * {@code needed} leaves when bucket {@code b + BUCKETS} begins, and that is the answer. The counts are read once, into one array,
   * so that both numbers come from the same reading of each slot.
   *
   * <p>A reading older than the newest bucket (its thread was descheduled while others went on) is
   * read at the newest bucket, as the exact window reads it at its newest decision, and as a late
   * call is decided: a reading never leaves out what was taken, and the time is still measured from
   * {@code now}, so it is only longer.
   */
  @Override
  public boolean readQuota(long now, long[] out) {
    Head h = buckets.head;
    long nowIndex = Math.max(Math.floorDiv(now, buckets.bucketNanos), h.index);
    long oldest = nowIndex - BUCKETS + 1;
    long[] byAge = new long[BUCKETS]; // byAge[i]: the count of bucket oldest + i
    long used = 0;
    for (int i = 0; i < BUCKETS; i++) {
      long value = buckets.slots.get(at(i));
      long index = h.index - ((int) h.index - bucket(value)); // the full number of the slot's 32-bit label
      long count = value & COUNT_MASK;
      if (count > 0 && index >= oldest && index <= nowIndex) {
        byAge[(int) (index - oldest)] += count;
        used += count;
      }
    }
    out[0] = Math.max(0, limit - used);
    out[1] = 0;
    if (used > 0 && limit > 0) {
      long needed = Math.max(0, used - limit) + 1;
      long freed = 0;
      for (int i = 0; i < BUCKETS; i++) {
        freed += byAge[i];
        if (freed >= needed) { // reached: the buckets hold used >= needed in all
          out[1] = (oldest + i + BUCKETS) * buckets.bucketNanos - now;
          break;
        }
      }
    }
    return true;
  }

  /** Sum of the counts of the other slots of {@code h}'s window, read now. */
  private long sumOthers(Head h) {
    long sum = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (i != h.slot) {
        long value = buckets.slots.get(at(i));
        int age = (int) h.index - bucket(value);
        if (age > 0 && age < BUCKETS) {
          sum += value & COUNT_MASK;
        }
      }
    }
    return sum;
  }

  /** Time until enough of the oldest buckets leave the window to admit {@code permits}; 0 if never. */
  private long retryAfter(Head h, long inWindow, int permits, long now) {
    if (permits > limit) {
      return 0;
    }
    long from = Math.max(now, h.index * buckets.bucketNanos);
    long freed = 0;
    for (long index = h.index - BUCKETS + 1; index <= h.index; index++) {
      long value = buckets.slots.get(at(slotOf(index)));
      if (bucket(value) == (int) index) {
        freed += value & COUNT_MASK;
      }
      if (inWindow - freed + permits <= limit) {
        return (index + BUCKETS) * buckets.bucketNanos - from;
      }
    }
    return (h.index + 1) * buckets.bucketNanos - from;
  }

  @Override
  public void refund(int permits, long token) {
    int slot = (int) (token >>> 32);
    int index = (int) token;
    while (true) {
      long value = buckets.slots.get(at(slot));
      // Lowering a count, sealed or not, only makes later checks more permissive by what was
      // never used; it can never let a window exceed the limit.
      if (bucket(value) != index || (value & COUNT_MASK) < permits
          || buckets.slots.compareAndSet(at(slot), value, value - permits)) {
        return;
      }
    }
  }

  private static final int PAID = 0;
  private static final int OWING = 1;
  private static final int RETRY = 2;

  /**
   * Takes as much of the debt as the window ending at {@code h} has room for; {@link #PAID} when
   * nothing is owed any more, {@link #OWING} when the window is full, {@link #RETRY} when the head
   * moved on (the slot is sealed or re-labelled). Under the debt's lock: two payers never take the
   * same room; admissions racing on the slot are excluded by the CAS.
   */
  private int payDebt(Head h) {
    Debt debt = buckets.debt;
    synchronized (debt) {
      while (true) {
        long owed = debt.owed();
        if (owed == 0) {
          return PAID;
        }
        long current = buckets.slots.get(at(h.slot));
        if ((current & SEALED) != 0 || bucket(current) != (int) h.index) {
          return RETRY;
        }
        long count = current & COUNT_MASK;
        long take = Math.min(owed, Math.min(limit - sumOthers(h) - count, COUNT_MASK - count));
        if (take <= 0) {
          return OWING;
        }
        if (buckets.slots.compareAndSet(at(h.slot), current, current + take)) {
          long unneeded = debt.repay(take); // a refund may have lowered the debt meanwhile
          if (unneeded > 0) {
            giveBack(unneeded, token(h.slot, h.index));
          }
        }
      }
    }
  }

  /** See the class comment, "Settling". */
  @Override
  public void settle(long delta, long token, long now) {
    if (delta < 0) {
      long left = buckets.debt.repay(-delta);
      if (left > 0) {
        giveBack(left, token);
      }
      return;
    }
    // No lock: the CAS on the newest slot makes "below count, then add the excess" one step (the
    // other buckets only go down meanwhile, by refunds). A debt added by another settle between the
    // read of the debt and the CAS changes only which excess is counted first, not the bound.
    Debt debt = buckets.debt;
    long nowIndex = Math.floorDiv(now, buckets.bucketNanos);
    while (true) {
      Head h = buckets.head;
      if (nowIndex > h.index) {
        advance(nowIndex);
        continue;
      }
      // A late reading is counted into the newest bucket: later, never earlier, than its own.
      long current = buckets.slots.get(at(h.slot));
      if ((current & SEALED) != 0 || bucket(current) != (int) h.index) {
        awaitAdvance();
        continue;
      }
      long count = current & COUNT_MASK;
      if (debt.owed() > 0 || sumOthers(h) + count >= limit) {
        debt.add(delta); // full, or owing already: taken as room comes
        return;
      }
      long take = Math.min(delta, COUNT_MASK - count);
      if (buckets.slots.compareAndSet(at(h.slot), current, current + take)) {
        if (delta > take) {
          debt.add(delta - take); // beyond what a slot holds: saturated, owed
        }
        return;
      }
    }
  }

  /** Lowers the count of the bucket of {@code token} by up to {@code permits}, while it holds that bucket. */
  private void giveBack(long permits, long token) {
    int slot = (int) (token >>> 32);
    int index = (int) token;
    while (true) {
      long value = buckets.slots.get(at(slot));
      long lower = Math.min(permits, value & COUNT_MASK);
      if (bucket(value) != index || lower == 0 || buckets.slots.compareAndSet(at(slot), value, value - lower)) {
        return;
      }
    }
  }

  /** Permits owed by settled calls and not taken yet; for tests. */
  long owed() {
    return buckets.debt.owed();
  }

  /** Credits leased in the newest bucket and not spent yet; for tests. */
  long unspentCredits() {
    return creditsAged(0, 0);
  }

  /** Credits leased in older buckets still in the window and not given back yet; for tests. */
  long strandedCredits() {
    return creditsAged(1, BUCKETS - 1);
  }

  /** Credits in the cells leased {@code from} to {@code to} buckets before the newest. */
  private long creditsAged(int from, int to) {
    AtomicLongArray cells = credits;
    if (cells == null) {
      return 0;
    }
    Head h = buckets.head;
    long sum = 0;
    for (int i = 0; i < CELLS; i++) {
      long credit = cells.get(at(i));
      int age = (int) h.index - bucket(credit);
      if (age >= from && age <= to) {
        sum += credit & CREDIT_MASK;
      }
    }
    return sum;
  }

  /** Admissions counted in the window of the newest bucket (credits included); for tests and diagnostics. */
  long inWindow() {
    Head h = buckets.head;
    return sumOthers(h) + (buckets.slots.get(at(h.slot)) & COUNT_MASK);
  }

  /** The bucket of the window ending at {@code newest} that lives in slot {@code slot}. */
  private static long bucketOfSlot(long newest, int slot) {
    return newest - Math.floorMod(newest - slot, (long) BUCKETS);
  }

  private static int slotOf(long index) {
    return (int) Math.floorMod(index, (long) BUCKETS);
  }

  private static long pack(long index) {
    return index << 32;
  }

  private static int at(int slot) {
    return (slot + 1) * STRIDE;
  }

  private static int bucket(long value) {
    return (int) (value >>> 32);
  }
}
