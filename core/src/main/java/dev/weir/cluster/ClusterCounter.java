package dev.weir.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * The shared count of one {@link ClusterLimit}.
 *
 * <p>{@link #acquire} must not block the calling thread: it starts one decision and returns a future
 * that the store completes, normally or exceptionally. The engine waits for it at most
 * {@link ClusterOptions#timeout()} and never retries a decision that missed its deadline (the store
 * may still apply it). Throwing from {@code acquire} is treated like a failed future.
 */
public interface ClusterCounter {

  /** Starts deciding whether {@code permits} more calls fit the limit, counting them if they do. */
  CompletableFuture<ClusterDecision> acquire(int permits);
}
