package dev.weir;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code grade: threads}: at most {@code count} admitted calls inside at once. Admission is a CAS
 * that increments only below the limit, so the limit holds under any number of threads; a call
 * gives its place back when it completes, or when a later rule refuses it.
 */
final class ConcurrencyLimiter extends FlowLimiter {

  private final int limit;
  private final AtomicInteger inside = new AtomicInteger();

  ConcurrencyLimiter(double count) {
    this.limit = (int) count;
  }

  @Override
  long tryAcquire(int permits, long now) {
    while (true) {
      int current = inside.get();
      if (current + 1 > limit) {
        return refused(0);
      }
      if (inside.compareAndSet(current, current + 1)) {
        return 0;
      }
    }
  }

  @Override
  void refund(int permits, long token) {
    inside.decrementAndGet();
  }

  @Override
  void release(int permits) {
    inside.decrementAndGet();
  }

  int inside() {
    return inside.get();
  }
}
