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
 * ({@code max(tat, now)} clamps it), so arbitrarily long idle periods cannot overflow. A
 * {@code tat} further ahead than any admission could have put it means the ticker went back, and
 * the bucket is treated as full.
 */
final class TokenBucketLimiter extends FlowLimiter {

  private final double emissionNanos;
  private final long horizonNanos;
  private final AtomicLong tat;

  TokenBucketLimiter(long durationNanos, double count, int burst, long now) {
    this.emissionNanos = count == 0 ? Double.POSITIVE_INFINITY : durationNanos / count;
    double horizon = (count + burst) * emissionNanos;
    this.horizonNanos = horizon >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE / 2 : (long) horizon;
    this.tat = new AtomicLong(now);
  }

  @Override
  long tryAcquire(int permits, long now) {
    if (Double.isInfinite(emissionNanos)) {
      return refused(0);
    }
    long cost = Math.max(1L, Math.round(permits * emissionNanos));
    while (true) {
      long current = tat.get();
      long ahead = current - now;
      long base = ahead < 0 || ahead > horizonNanos ? now : current;
      long next = base + cost;
      long over = next - now - horizonNanos;
      if (over > 0) {
        return refused(over);
      }
      if (tat.compareAndSet(current, next)) {
        return cost;
      }
    }
  }

  @Override
  void refund(int permits, long token) {
    tat.addAndGet(-token);
  }
}
