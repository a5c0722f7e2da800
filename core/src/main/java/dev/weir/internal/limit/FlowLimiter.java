package dev.weir.internal.limit;

import dev.weir.Criticality;
import org.jspecify.annotations.Nullable;

/**
 * The admission state of one flow rule (or of one origin under a {@code limit-app: other} rule).
 *
 * <p>{@link #tryAcquire} decides and counts in one atomic step, so that concurrent callers can never
 * overshoot the count between a check and an increment. Its result is encoded in one {@code long}
 * to keep the hot path free of allocation: {@code >= 0} means admitted (the value is a token that
 * {@link #refund} understands); a negative value {@code r} means refused, with
 * {@code -(r + 1)} nanoseconds until a permit is expected to be free ({@code 0} when unknown).
 */
public abstract class FlowLimiter {

  /**
   * The largest cost, wait or horizon a limiter computes with, about 36 years: validation keeps
   * rules far below it, and capping a product of {@code permits} and a spacing at it keeps every
   * sum of two such values from overflowing.
   */
  static final long MAX_NANOS = Long.MAX_VALUE >> 3;

  /** {@code permits * nanosPerPermit} in whole nanoseconds, at least 1 and at most {@link #MAX_NANOS}. */
  static long cost(int permits, double nanosPerPermit) {
    return Math.max(1L, capped(permits * nanosPerPermit));
  }

  /** {@code nanos} rounded to whole nanoseconds, at most {@link #MAX_NANOS}. */
  static long capped(double nanos) {
    return nanos >= MAX_NANOS ? MAX_NANOS : Math.round(nanos);
  }

  /** Encodes a refusal with its retry-after delay. */
  public static long refused(long retryAfterNanos) {
    return -1L - Math.max(0L, retryAfterNanos);
  }

  /** Decodes the retry-after delay of a refusal. */
  public static long retryAfterNanos(long refusal) {
    return -1L - refusal;
  }

  /** {@link #complete} outcome: the call completed without an error recorded. */
  public static final int SUCCEEDED = 0;
  /** {@link #complete} outcome: the call completed with an error recorded ({@code Entry.recordError}). */
  public static final int FAILED = 1;
  /**
   * {@link #complete} outcome: the call was cancelled ({@code Entry.cancel()}) with no error recorded;
   * it has no outcome. A cancel after {@code Entry.recordError} completes as {@link #FAILED}.
   */
  public static final int CANCELLED = 2;

  /** Admits and counts {@code permits}, or refuses; see the class comment for the encoding. */
  public abstract long tryAcquire(int permits, long now);

  /**
   * As {@link #tryAcquire(int, long)} for a call of {@code criticality}; only an adaptive limit
   * tells criticalities apart.
   */
  public long tryAcquire(int permits, long now, Criticality criticality) {
    return tryAcquire(permits, now);
  }

  /**
   * As {@link #tryAcquire}, but never waits: a call that {@code tryAcquire} would make wait for its
   * slot is admitted at once, its slot taken all the same, so the limiter's state is what it would
   * be had the call waited. For rules in shadow mode, whose calls must not be slowed down.
   */
  public long tryAcquireWithoutWaiting(int permits, long now) {
    return tryAcquire(permits, now);
  }

  /** As {@link #tryAcquireWithoutWaiting(int, long)} for a call of {@code criticality}. */
  public long tryAcquireWithoutWaiting(int permits, long now, Criticality criticality) {
    return tryAcquireWithoutWaiting(permits, now);
  }

  /**
   * A rule in shadow mode lets in a call this limiter refused: a limiter that must see every call
   * that goes on to learn from it (an adaptive limit, which follows the latency of the calls inside)
   * counts it now and returns a token, as for an admission; the others return -1 and hold nothing.
   */
  public long holdInShadow(int permits, long now) {
    return -1;
  }

  /** Gives back permits admitted with {@code token} when a later rule refused the same call. */
  public void refund(int permits, long token) {
  }

  /**
   * A limiter for the same rule with another {@code count} that keeps this one's state (the calls
   * inside, the current window's admissions), or null when the state does not carry over.
   */
  public @Nullable FlowLimiter withCount(double count) {
    return null;
  }

  /**
   * Reads, without taking anything, how many permits the limiter would admit at {@code now} and
   * when it will admit more, into {@code out}: {@code out[0]} the permits it would admit to calls
   * of one permit each, {@code out[1]} the nanoseconds from {@code now} until it will admit at
   * least one permit more than that, or 0 when it never will ({@code out[0]} is already the most it
   * admits at once: nothing is counted, or the count is 0). Neither may promise more than
   * {@link #tryAcquire} would then admit, had nothing else been taken: a reading older than the
   * limiter's newest state is read at that state, as a late call is decided. Returns false when the
   * limiter keeps no quota of that kind (pacing, warm-up, concurrency, cluster limiters), and then
   * leaves {@code out} alone. A reading, not a promise: other calls may take permits at once.
   */
  public boolean readQuota(long now, long[] out) {
    return false;
  }

  /**
   * The limiter that took over this one's rule at a change of its {@code count} (carried or fresh),
   * or null: a settle of a call admitted here goes to the newest one ({@link #latest}).
   */
  private volatile @Nullable FlowLimiter successor;

  /**
   * Settles a call admitted with {@code token} at its actual cost: {@code delta} is the actual cost
   * less the permits it took ({@code Entry.settle}); negative gives back unused permits, positive
   * is a debt the limiter takes before it admits again. {@code now} is an engine reading taken at the
   * settle. The internal hook of {@code Entry.settle}: the engine calls it on {@link #latest()} of
   * each limiter the call holds, at most once per call, before {@link #complete}, from any thread.
   * The default does nothing: a limiter that does not count permits (concurrency, adaptive) keeps
   * its state. A limiter that counts them must keep its bound: over any window, the cost taken is at
   * most its count plus the largest {@code delta} of one call, and it must saturate rather than
   * overflow, whatever {@code delta} (up to {@link Long#MAX_VALUE}).
   *
   * <p>{@code token} is the one {@link #tryAcquire} returned for the call, or the one of a limiter
   * this one succeeded ({@link #succeededBy}) for a call admitted before the rule's count changed.
   */
  public void settle(long delta, long token, long now) {
  }

  /** Records that {@code next} took over this limiter's rule at a count change; see {@link #settle}. */
  public final void succeededBy(FlowLimiter next) {
    if (next != this) {
      successor = next;
      next.carried(this);
    }
  }

  /**
   * Called on the successor when {@code previous} is succeeded by it, after {@link #latest} of
   * {@code previous} leads here: a limiter that keeps debts moves them over. Default: nothing.
   */
  protected void carried(FlowLimiter previous) {
  }

  /** The newest limiter of this one's rule: itself, or the last of its successors. */
  public final FlowLimiter latest() {
    FlowLimiter at = this;
    for (FlowLimiter next = at.successor; next != null; next = at.successor) {
      at = next;
    }
    return at;
  }

  /** {@code a + b} for non-negative values, at most {@link Long#MAX_VALUE}. */
  static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** Called when a call admitted by this limiter completes. */
  public void release(int permits) {
  }

  /**
   * Called when a call admitted by this limiter with {@code token} completes: what the call protocol
   * calls, with what a limiter that learns from its calls needs (the call's engine times and
   * outcome: {@link #SUCCEEDED}, {@link #FAILED} or {@link #CANCELLED}). By default
   * {@link #release(int)}.
   */
  public void complete(int permits, long token, long startNanos, long endNanos, int outcome) {
    release(permits);
  }
}
