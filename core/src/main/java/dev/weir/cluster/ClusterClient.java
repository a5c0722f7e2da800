package dev.weir.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * A store that counts cluster-mode flow rules for every instance of an application.
 *
 * <p>Implementations must be thread-safe. {@link #counter} is called when a rule is loaded (not per
 * call) and must not block; the counters it returns are called on the hot path.
 */
public interface ClusterClient {

  /** Returns the counter of one limit; every instance that asks for an equal limit shares its count. */
  ClusterCounter counter(ClusterLimit limit);

  /** Starts a round trip to the store that does nothing else; for health checks. Must not block. */
  CompletableFuture<?> ping();

  /** Describes where the store is, for logs and health details ({@code redis 10.0.0.5:6379}). */
  String description();
}
