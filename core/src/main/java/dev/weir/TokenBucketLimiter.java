package dev.weir;

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
 */
final class TokenBucketLimiter extends FlowLimiter {

  private final double emissionNanos;
  private final long horizonNanos;
  private final AtomicLong tat;
  private final EngineClock clock;

  TokenBucketLimiter(long durationNanos, double count, int burst, EngineClock clock, long now) {
    this.clock = clock;
    this.emissionNanos = count == 0 ? Double.POSITIVE_INFINITY : durationNanos / count;
    double horizon = (count + burst) * emissionNanos;
    this.horizonNanos = horizon >= MAX_NANOS ? MAX_NANOS : (long) horizon;
    this.tat = new AtomicLong(now);
  }

  @Override
  long tryAcquire(int permits, long now) {
    if (Double.isInfinite(emissionNanos)) {
      return refused(0);
    }
    long cost = cost(permits, emissionNanos);
    boolean fresh = false;
    while (true) {
      long current = tat.get();
      long next = (current - now < 0 ? now : current) + cost;
      long over = next - now - horizonNanos;
      if (over > 0) {
        if (!fresh) {
          now = clock.read();
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
   * The whole tokens in the bucket at {@code now}, {@code (now + horizon - tat) / emission} (up to
   * {@code count + burst}), and the time until it is full again, {@code tat - now}.
   */
  @Override
  boolean readQuota(long now, long[] out) {
    if (Double.isInfinite(emissionNanos)) {
      out[0] = 0;
      out[1] = 0;
      return true;
    }
    long current = tat.get();
    long behind = Math.max(0, current - now);
    out[0] = (long) Math.floor(Math.max(0, horizonNanos - behind) / emissionNanos);
    out[1] = behind;
    return true;
  }

  @Override
  void refund(int permits, long token) {
    tat.addAndGet(-token);
  }
}
