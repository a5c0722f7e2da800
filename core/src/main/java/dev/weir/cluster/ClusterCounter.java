package dev.weir.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * The shared count of one {@link ClusterLimit}.
 *
 * <p>{@link #acquire} must not block the calling thread: it starts one decision and returns a future
 * that the store completes, normally or exceptionally. The engine waits for it at most
 * {@link ClusterOptions#timeout()}, never retries a decision that missed its deadline, and cancels
 * its future: a client should then drop the command if it has not sent it yet (one already sent may
 * still be applied by the store). Throwing from {@code acquire} is treated like a failed future.
 */
public interface ClusterCounter {

  /** Starts deciding whether {@code permits} more calls fit the limit, counting them if they do. */
  CompletableFuture<ClusterDecision> acquire(int permits);

  /**
   * Starts settling a call this counter admitted ({@code Entry.settle}): changes the permits counted
   * for it by {@code delta}, its actual cost less the permits it was admitted with, on the state it
   * was counted in (the window or key of the admission, found by {@code stampMicros}, the admission's
   * {@link ClusterDecision#stampMicros()}; {@code 0} when the store did not say). A negative
   * {@code delta} gives back {@code -delta} permits at most (never more than the call took, since its
   * actual cost is {@code 0} or more), and nothing the limit no longer counts; a positive one is a
   * debt, counted as admissions are, so that the limit takes it before it admits again (a store may
   * cap it at what fills one window: a debt beyond that refuses no longer). {@code delta} is never
   * {@code 0}, and may be as large as {@link Long#MAX_VALUE}. The engine may add to a call's
   * {@code delta} debts of earlier calls of the same limit that the store did not take.
   *
   * <p>One round trip, at most once per admitted call; must not block, and follows {@link #acquire}'s
   * rules on futures (the engine never waits for it, and cancels it at its deadline). The default
   * cannot settle: its future fails with {@link UnsupportedOperationException}, which the engine
   * counts as a settlement the store did not take.
   */
  default CompletableFuture<?> settle(long stampMicros, long delta) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("this store cannot settle calls"));
  }
}
