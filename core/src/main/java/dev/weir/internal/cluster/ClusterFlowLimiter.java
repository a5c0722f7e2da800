package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLimit;
import dev.weir.internal.limit.FlowLimiter;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The limiter of a cluster-mode flow rule: the store decides through the engine's
 * {@link ClusterGuard}; when it cannot, the guard's fallback does ({@code local} asks a
 * {@link WindowLimiter} of the same count and interval that only this instance feeds).
 *
 * <p>Permits counted in the store are not given back when a later rule refuses the same call: that
 * would be one more store command per refusal, and a store that counts a refused call only errs on
 * the safe side. Permits taken from the local limiter are refunded as usual.
 *
 * <p>The {@code share} fallback asks a local limiter of this instance's share of the count, made
 * for the live-instance count last seen and made again (keeping the window's state where the
 * limiter can, {@link FlowLimiter#withCount}) when that count changes. A call holds the limiter
 * that admitted it, so a refund after a change reaches the right one.
 */
public final class ClusterFlowLimiter extends FlowLimiter {

  /**
   * The token of a call the allow fallback admitted: nothing counted it, so nothing settles it. No
   * local token is this large.
   */
  static final long STORE_TOKEN = Long.MAX_VALUE;

  /**
   * Tokens from here on are calls the store admitted (or, {@link #STORE_TOKEN}, the allow
   * fallback): these two bits set, and below them the decision's {@link ClusterDecision#stampMicros()},
   * which a settlement needs to find the state the call was counted in. No local token, and no
   * lease token ({@link LeasedFlowLimiter}: bit 62 and a lease number far below 2^61), is this large.
   */
  public static final long STORE_BASE = 3L << 61;

  /** The stamp bits of a store token: stamps up to about the year 2043 fit whole, later ones are capped. */
  private static final long STAMP_MASK = (1L << 61) - 1;

  public final ClusterGuard guard;
  /** The flow rule's limit; null for a key of a param-flow rule. */
  public final @Nullable ClusterLimit limit;
  private final double count;
  private final ClusterCounter counter;
  /** Debts of settled calls the store did not take; the next settlement sent carries them. */
  private final UnsentDebt unsent = new UnsentDebt();
  final FlowLimiter local;
  private final DoubleFunction<FlowLimiter> localOfCount;
  /** The share fallback's limiter and the live-instance count it was made for; replaced together. */
  private volatile Share share;

  private record Share(int instances, FlowLimiter limiter) {
  }

  /**
   * @param local the local limiter of the rule's own count
   * @param localOfCount makes a local limiter of the rule with another count (the share fallback)
   */
  public ClusterFlowLimiter(ClusterGuard guard, ClusterLimit limit, FlowLimiter local, DoubleFunction<FlowLimiter> localOfCount) {
    this(guard, limit, limit.count(), guard.client.counter(limit), local, localOfCount);
  }

  /** The limiter of one key of a cluster-mode param-flow rule, counted by {@code counter}. */
  public ClusterFlowLimiter(ClusterGuard guard, double count, ClusterCounter counter, FlowLimiter local,
      DoubleFunction<FlowLimiter> localOfCount) {
    this(guard, null, count, counter, local, localOfCount);
  }

  private ClusterFlowLimiter(ClusterGuard guard, @Nullable ClusterLimit limit, double count, ClusterCounter counter,
      FlowLimiter local, DoubleFunction<FlowLimiter> localOfCount) {
    this.guard = guard;
    this.limit = limit;
    this.count = count;
    this.counter = counter;
    this.local = local;
    this.localOfCount = localOfCount;
    this.share = new Share(1, local);
  }

  /** This instance's share of {@code count} among {@code instances}: see {@link dev.weir.cluster.ClusterFallback#SHARE}. */
  static double shareOf(double count, int instances) {
    if (count < 1) {
      return 0;
    }
    return Math.max(1, Math.floor(count / Math.max(1, instances)));
  }

  /** The local limiter the fallback asks: the rule's own ({@code local}), or this instance's share ({@code share}). */
  public FlowLimiter fallbackLimiter() {
    if (guard.fallback != ClusterFallback.SHARE) {
      return local;
    }
    int instances = Math.max(1, guard.client.liveInstances());
    Share current = share;
    if (current.instances() == instances) {
      return current.limiter();
    }
    synchronized (this) {
      current = share;
      if (current.instances() != instances) {
        double shared = instances == 1 ? count : shareOf(count, instances);
        FlowLimiter carried = current.limiter().withCount(shared);
        current = new Share(instances, carried != null ? carried : localOfCount.apply(shared));
        share = current;
      }
      return current.limiter();
    }
  }

  @Override
  public long tryAcquire(int permits, long now) {
    return acquire(permits, now, true);
  }

  @Override
  public long tryAcquireWithoutWaiting(int permits, long now) {
    return acquire(permits, now, false);
  }

  /** One decision of the store for this call alone, or the fallback's when the store cannot decide. */
  long acquire(int permits, long now, boolean waits) {
    ClusterDecision decision = guard.decide(counter, permits, now);
    if (decision != null) {
      return decision.admitted() ? storeToken(decision) : refused(TimeUnit.MILLISECONDS.toNanos(decision.retryAfterMillis()));
    }
    return fallBack(permits, now, waits);
  }

  /** The fallback's decision (not counted: the caller counted why it fell back). */
  long fallBack(int permits, long now, boolean waits) {
    return switch (guard.fallback) {
      case LOCAL, SHARE -> fallback(permits, now, waits);
      case ALLOW -> STORE_TOKEN;
      case DENY -> refused(0);
    };
  }

  /**
   * Asks the fallback's local limiter. A refund goes to the current one, which may have replaced
   * the limiter that admitted (the live-instance count changed in between). That is sound for the
   * limiters a cluster rule falls back to: a {@link WindowLimiter} made by {@code withCount} shares
   * its predecessor's buckets, which the token names (a token of a bucket that has moved on is
   * ignored), and an {@link ExactLimiter} refunds nothing.
   */
  private long fallback(int permits, long now, boolean waits) {
    FlowLimiter limiter = fallbackLimiter();
    return waits ? limiter.tryAcquire(permits, now) : limiter.tryAcquireWithoutWaiting(permits, now);
  }

  /** The token of a call {@code decision} admitted. */
  static long storeToken(ClusterDecision decision) {
    return STORE_BASE | Math.min(decision.stampMicros(), STAMP_MASK - 1);
  }

  /** Whether {@code token} is a call the store (or the allow fallback) admitted. */
  public static boolean storeAdmitted(long token) {
    return token >= STORE_BASE;
  }

  /** The store's stamp of the call admitted with {@code token}; 0 when it did not say. */
  static long stampOf(long token) {
    return token & STAMP_MASK;
  }

  @Override
  public void refund(int permits, long token) {
    if (!storeAdmitted(token)) {
      fallbackLimiter().refund(permits, token);
    }
  }

  /**
   * A call the store admitted settles there: one command on the window or key it was counted in
   * ({@link ClusterGuard#settle}, which the caller never waits for). A call the local or share
   * fallback admitted settles with the fallback's limiter, as a refund does; one the allow fallback
   * admitted was counted nowhere and settles nowhere.
   */
  @Override
  public void settle(long delta, long token, long now) {
    if (token == STORE_TOKEN) {
      return;
    }
    if (storeAdmitted(token)) {
      guard.settle(counter, token, delta, now, unsent);
    } else {
      fallbackLimiter().latest().settle(delta, token, now);
    }
  }

  /**
   * Charges the store a debt of no call it admitted (what a {@link LeasedFlowLimiter}'s leases could
   * not pay): a settlement without a stamp, which the store counts now.
   */
  void charge(long debt, long now) {
    guard.settle(counter, STORE_BASE, debt, now, unsent);
  }

  /** A limiter made again for the rule (its count changed) takes over the debts the store did not take. */
  @Override
  protected void carried(FlowLimiter previous) {
    if (previous instanceof ClusterFlowLimiter cluster) {
      long kept = cluster.unsent.take();
      if (kept > 0) {
        unsent.add(kept);
      }
      if (cluster.local != local) {
        cluster.local.succeededBy(local); // a call the local fallback admitted settles with the new one
      }
    }
  }
}
