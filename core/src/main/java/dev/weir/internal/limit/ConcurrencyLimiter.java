package dev.weir.internal.limit;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code grade: threads}: at most {@code count} admitted calls inside at once. Admission is a CAS
 * that increments only below the limit, so the limit holds under any number of threads; a call
 * gives its place back when it completes, or when a later rule refuses it.
 */
public final class ConcurrencyLimiter extends FlowLimiter {

  private final int limit;
  /** Calls inside, at index {@link #AT}: alone on its cache line, as it is written by every call. */
  private final AtomicLongArray cell;
  private static final int AT = 8;

  public ConcurrencyLimiter(double count) {
    this((int) count, new AtomicLongArray(2 * AT + 1));
  }

  private ConcurrencyLimiter(int limit, AtomicLongArray cell) {
    this.limit = limit;
    this.cell = cell;
  }

  /** The same calls inside, under another limit: a changed {@code count} keeps counting them. */
  @Override
  public FlowLimiter withCount(double count) {
    return new ConcurrencyLimiter((int) count, cell);
  }

  @Override
  public long tryAcquire(int permits, long now) {
    while (true) {
      long current = cell.get(AT);
      if (current + 1 > limit) {
        return refused(0);
      }
      if (cell.compareAndSet(AT, current, current + 1)) {
        return 0;
      }
    }
  }

  @Override
  public void refund(int permits, long token) {
    cell.decrementAndGet(AT);
  }

  @Override
  public void release(int permits) {
    cell.decrementAndGet(AT);
  }

  /** The calls inside now: never above the limit, as a place is taken only below it. */
  public int inside() {
    return (int) cell.get(AT);
  }
}
