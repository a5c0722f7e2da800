package dev.weir.internal.limit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The permits a limiter owes for calls that settled above their estimate ({@code Entry.settle}) and
 * that it could not take at once: it takes them as room comes, before it admits again. Saturates at
 * {@link Long#MAX_VALUE} (a debt that large keeps the limiter shut, it never wraps).
 *
 * <p>Reading it is one volatile read: what an admission pays for this when nothing is owed.
 * Adding and giving back are lock-free; taking a debt into the limiter's count is done under this
 * object's lock by the limiter, so that two threads never both take the same room for it.
 */
final class Debt {

  private final AtomicLong owed = new AtomicLong();

  long owed() {
    return owed.get();
  }

  void add(long permits) {
    owed.accumulateAndGet(permits, FlowLimiter::saturatedAdd);
  }

  /** Lowers the debt by up to {@code permits}; returns what was not needed for it. */
  long repay(long permits) {
    while (true) {
      long current = owed.get();
      if (current == 0) {
        return permits;
      }
      long paid = Math.min(current, permits);
      if (owed.compareAndSet(current, current - paid)) {
        return permits - paid;
      }
    }
  }

  /** Takes the whole debt (to move it to a limiter that succeeded this one's). */
  long takeAll() {
    return owed.getAndSet(0);
  }
}
