package dev.weir.internal.cluster;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Debts of settled calls ({@code Entry.settle}) kept by one cluster-mode limiter until they can be
 * paid, saturating at {@link Long#MAX_VALUE}: for a per-call limiter ({@link ClusterFlowLimiter}),
 * those the store did not take (it failed, missed the deadline, or was not asked), which the next
 * settlement sent carries in its one command; for a leased one ({@link LeasedFlowLimiter}), what the
 * leases in hand could not cover, which the next lease pays first. Refunds are never kept: a refund
 * the store did not take leaves the permits counted there, which only errs on the side of refusing.
 */
@SuppressWarnings("serial")
final class UnsentDebt extends AtomicLong {

  /** Keeps {@code debt} ({@code > 0}) for the next settlement. */
  void add(long debt) {
    add(debt, Long.MAX_VALUE);
  }

  /** Keeps {@code debt} ({@code > 0}), the sum kept at most {@code cap}. */
  void add(long debt, long cap) {
    long kept = get();
    while (!compareAndSet(kept, Math.min(cap, saturatedSum(kept, debt)))) {
      kept = get();
    }
  }

  /** Takes every debt kept, for a settlement about to be sent; {@code 0} when none. */
  long take() {
    return get() == 0 ? 0 : getAndSet(0);
  }

  /** {@code a + b} for {@code b >= 0}, at most {@link Long#MAX_VALUE}. */
  static long saturatedSum(long a, long b) {
    long sum = a + b;
    return a > 0 && sum < 0 ? Long.MAX_VALUE : sum;
  }
}
