package dev.weir.internal.limit;

import dev.weir.internal.time.EngineClock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A token bucket of {@code capacity} permits refilled at one permit per {@code emission}
 * nanoseconds, kept as a single number: the theoretical arrival time ({@code tat}) of the generic
 * cell rate algorithm. Taking {@code p} permits moves {@code tat} to {@code max(tat, now) + p *
 * emission}; the call is admitted when that stays within {@code capacity * emission} of now.
 * Equivalent to a bucket holding {@code (now + capacity * emission - tat) / emission} tokens.
 *
 * <p>One long state means one CAS per admission, no lock; idle time needs no refill arithmetic
 * ({@code max(tat, now)} clamps it), so arbitrarily long idle periods cannot overflow.
 *
 * <h2>Late readings (see {@link EngineClock})</h2>
 * {@code tat} only moves forward, by {@code cost} per admission, and an admission at reading
 * {@code r} leaves it at most {@code r + horizon}. So the admissions whose readings lie in any span
 * {@code [a, b]}, in whatever order they arrive, number at most
 * {@code (b - a) / emission + count + burst}: a late reading is judged against a bucket that is only
 * emptier, never refilled or reset. Before refusing, a call re-reads the clock once, so that it is
 * not refused merely for being late.
 *
 * <h2>Settling ({@code Entry.settle})</h2>
 * A call that settles below its estimate moves {@code tat} back by the permits it did not use (after
 * lowering a debt owed); one that settles above it moves {@code tat} on by the excess, in full, when
 * the bucket is not empty ({@code tat < now + horizon}) and nothing is owed, else adds it to a
 * {@link Debt}, which admissions take as the bucket refills (never beyond the horizon) before they
 * are admitted again. So every move of {@code tat} starts below {@code r + horizon} (a debt taken in
 * full, by at most its excess) or ends at most there: over any span {@code [a, b]}, the cost taken
 * is at most {@code (b - a) / emission + count + burst + the largest excess of one call}. An excess
 * is capped at {@link #MAX_NANOS} of emission, so no cost, however large, overflows {@code tat}.
 * A debt owed is taken by the calls that come, out of what the bucket holds when they come (at most
 * {@code count + burst} at once): a bucket left idle while it owes does not refill beyond that.
 */
public final class TokenBucketLimiter extends FlowLimiter {

  private final double emissionNanos;
  private final long horizonNanos;
  private final AtomicLong tat;
  private final EngineClock clock;
  /** Permits owed by calls that settled above their estimate; see "Settling". */
  private final Debt debt = new Debt();

  public TokenBucketLimiter(long durationNanos, double count, int burst, EngineClock clock, long now) {
    this.clock = clock;
    this.emissionNanos = count == 0 ? Double.POSITIVE_INFINITY : durationNanos / count;
    double horizon = (count + burst) * emissionNanos;
    this.horizonNanos = horizon >= MAX_NANOS ? MAX_NANOS : (long) horizon;
    this.tat = new AtomicLong(now);
  }

  @Override
  public long tryAcquire(int permits, long now) {
    if (Double.isInfinite(emissionNanos)) {
      return refused(0);
    }
    long cost = cost(permits, emissionNanos);
    if (debt.owed() > 0) {
      long wait = payDebt(now);
      if (wait >= 0) {
        return refused(wait);
      }
    }
    boolean fresh = false;
    while (true) {
      long current = tat.get();
      long next = (current - now < 0 ? now : current) + cost;
      long over = next - now - horizonNanos;
      if (over > 0) {
        if (!fresh) {
          now = clock.readFresh();
          fresh = true;
          continue;
        }
        return refused(over);
      }
      if (tat.compareAndSet(current, next)) {
        return cost;
      }
    }
  }

  /**
   * What the bucket holds at {@code now}, and the time until it holds one permit more; see
   * {@link #read(double, long, long, long[])}. A reading older than the last admission's is read
   * against the bucket as it is now, which is only emptier for it.
   */
  @Override
  public boolean readQuota(long now, long[] out) {
    read(emissionNanos, horizonNanos, tat.get() - now, out);
    return true;
  }

  /**
   * The reading of a bucket of {@code count + burst} permits refilled at {@code count} per
   * {@code durationNanos} that no call has taken from yet: what a key not seen yet would have.
   * Computed as the limiter itself would read it, so that it promises no more than the limiter
   * would admit.
   */
  public static void readFull(long durationNanos, double count, int burst, long[] out) {
    double emission = count == 0 ? Double.POSITIVE_INFINITY : durationNanos / count;
    double horizon = (count + burst) * emission;
    read(emission, horizon >= MAX_NANOS ? MAX_NANOS : (long) horizon, 0, out);
  }

  /**
   * The quota of a bucket whose {@code tat} is {@code behind} nanoseconds after the reading.
   *
   * <p>A call of one permit at a reading {@code r} is admitted when {@code max(tat, r) + cost - r
   * <= horizon}, with {@code cost} one emission rounded to whole nanoseconds (at least 1), and each
   * admission moves {@code tat} on by {@code cost}. So at the reading the bucket has
   * {@code room = horizon - max(0, behind)} nanoseconds, and admits {@code room / cost} such calls
   * one after another: {@code out[0]}. One more fits once {@code room} has grown to
   * {@code (out[0] + 1) * cost}, which it does one nanosecond per nanosecond until the bucket is
   * full ({@code room == horizon}): {@code out[1]} is that difference, the same time
   * {@link #tryAcquire} gives a refused call of one permit. When {@code (out[0] + 1) * cost} is
   * beyond {@code horizon} even a full bucket does not hold one more, and {@code out[1]} is 0. A
   * count of 0 admits nothing, ever: 0 and 0.
   */
  private static void read(double emissionNanos, long horizonNanos, long behind, long[] out) {
    if (Double.isInfinite(emissionNanos)) {
      out[0] = 0;
      out[1] = 0;
      return;
    }
    long cost = cost(1, emissionNanos);
    long room = horizonNanos - Math.max(0, behind); // behind <= MAX_NANOS + horizon: no overflow
    long remaining = room <= 0 ? 0 : room / cost;
    long full = (remaining + 1) * cost; // <= horizon + cost <= 2 * MAX_NANOS
    out[0] = remaining;
    out[1] = full > horizonNanos ? 0 : full - room;
  }

  @Override
  public void refund(int permits, long token) {
    tat.addAndGet(-token);
  }

  /**
   * Takes as much of the debt as the bucket holds at {@code now}; returns -1 when nothing is owed
   * any more, else the nanoseconds until the bucket holds one permit more. Under the debt's lock, so
   * that two payers never take the same room; admissions racing on {@code tat} lose the CAS.
   */
  private long payDebt(long now) {
    long per = cost(1, emissionNanos);
    synchronized (debt) {
      while (true) {
        long owed = debt.owed();
        if (owed == 0) {
          return -1;
        }
        long current = tat.get();
        long base = current - now < 0 ? now : current;
        long room = now + horizonNanos - base;
        if (room < per) {
          return per - room;
        }
        long take = Math.min(owed, room / per);
        if (tat.compareAndSet(current, base + take * per)) { // take * per <= room <= horizon
          long unneeded = debt.repay(take); // a refund may have lowered the debt meanwhile
          if (unneeded > 0) {
            tat.addAndGet(-unneeded * per);
          }
        }
      }
    }
  }

  /** See the class comment, "Settling". */
  @Override
  public void settle(long delta, long token, long now) {
    if (Double.isInfinite(emissionNanos)) {
      return;
    }
    if (delta < 0) {
      long left = debt.repay(-delta);
      if (left > 0) {
        tat.addAndGet(-capped(left * emissionNanos));
      }
      return;
    }
    while (true) { // no lock: the CAS on tat makes "not empty, then move on by the excess" one step
      long current = tat.get();
      long base = current - now < 0 ? now : current;
      if (debt.owed() > 0 || base - now >= horizonNanos) {
        debt.add(delta); // empty, or owing already: taken as the bucket refills
        break;
      }
      // base - now < horizon <= MAX_NANOS, and the excess at most MAX_NANOS: no overflow
      if (tat.compareAndSet(current, base + capped(delta * emissionNanos))) {
        break;
      }
    }
    FlowLimiter latest = latest();
    if (latest != this) {
      latest.carried(this); // the rule's count changed while this settled: the debt goes on with it
    }
  }

  @Override
  protected void carried(FlowLimiter previous) {
    if (previous instanceof TokenBucketLimiter bucket) {
      long moved = bucket.debt.takeAll();
      if (moved > 0) {
        debt.add(moved);
      }
    }
  }

  /** How far {@code tat} runs ahead of {@code now}, in nanoseconds (0 when the bucket is full); for tests. */
  long ahead(long now) {
    return Math.max(0, tat.get() - now);
  }

  /**
   * As {@link #ahead(long)} at a reading taken after {@code tat} is read: every move of {@code tat}
   * seen was decided on a reading no later than it; for tests on the real clock.
   */
  long aheadNow() {
    long at = tat.get();
    return Math.max(0, at - clock.read());
  }

  /** Permits owed by settled calls and not taken yet; for tests. */
  long owed() {
    return debt.owed();
  }
}
