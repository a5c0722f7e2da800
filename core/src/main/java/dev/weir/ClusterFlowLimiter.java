package dev.weir;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterLimit;
import java.util.concurrent.TimeUnit;

/**
 * The limiter of a cluster-mode flow rule: the store decides through the engine's
 * {@link ClusterGuard}; when it cannot, the guard's fallback does ({@code local} asks a
 * {@link WindowLimiter} of the same count and interval that only this instance feeds).
 *
 * <p>Permits counted in the store are not given back when a later rule refuses the same call: that
 * would be one more store command per refusal, and a store that counts a refused call only errs on
 * the safe side. Permits taken from the local limiter are refunded as usual.
 */
final class ClusterFlowLimiter extends FlowLimiter {

  /** The token of a call the store or the allow fallback admitted; no local token is this large. */
  static final long STORE_TOKEN = Long.MAX_VALUE;

  final ClusterGuard guard;
  final ClusterLimit limit;
  private final ClusterCounter counter;
  final FlowLimiter local;

  ClusterFlowLimiter(ClusterGuard guard, ClusterLimit limit, FlowLimiter local) {
    this.guard = guard;
    this.limit = limit;
    this.counter = guard.client.counter(limit);
    this.local = local;
  }

  @Override
  long tryAcquire(int permits, long now) {
    return acquire(permits, now, true);
  }

  @Override
  long tryAcquireWithoutWaiting(int permits, long now) {
    return acquire(permits, now, false);
  }

  private long acquire(int permits, long now, boolean waits) {
    ClusterDecision decision = guard.decide(counter, permits, now);
    if (decision != null) {
      return decision.admitted() ? STORE_TOKEN : refused(TimeUnit.MILLISECONDS.toNanos(decision.retryAfterMillis()));
    }
    return switch (guard.fallback) {
      case LOCAL -> waits ? local.tryAcquire(permits, now) : local.tryAcquireWithoutWaiting(permits, now);
      case ALLOW -> STORE_TOKEN;
      case DENY -> refused(0);
    };
  }

  @Override
  void refund(int permits, long token) {
    if (token != STORE_TOKEN) {
      local.refund(permits, token);
    }
  }
}
