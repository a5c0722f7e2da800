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
}
