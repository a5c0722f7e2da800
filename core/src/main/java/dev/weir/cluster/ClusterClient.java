package dev.weir.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A store that counts cluster-mode rules for every instance of an application: flow limits alone
 * or several at once ({@link #counterOfAll}), keys of param-flow rules ({@link #keyCounter}), and
 * how many instances are live ({@link #liveInstances}, for the {@link ClusterFallback#SHARE} fallback).
 *
 * <p>Implementations must be thread-safe. {@link #counter} is called when a rule is loaded (not per
 * call) and must not block; the counters it returns are called on the hot path.
 */
public interface ClusterClient {

  /** Returns the counter of one limit; every instance that asks for an equal limit shares its count. */
  ClusterCounter counter(ClusterLimit limit);

  /**
   * Returns one counter that decides all of {@code limits} (two or more, of one resource) in one
   * round trip, all or nothing: permits are counted in every limit when all of them fit, and in
   * none when one does not; a refusal names the first that did not fit
   * ({@link ClusterDecision#refusedBy()}) and waits until all would fit. Each limit shares its count
   * with {@link #counter(ClusterLimit)} of an equal limit. Returns null when the store cannot (the
   * default): the engine then asks each limit's counter in turn.
   */
  default @Nullable ClusterCounter counterOfAll(List<ClusterLimit> limits) {
    return null;
  }

  /**
   * Returns the counter of one key of a cluster-mode param-flow rule; every instance that asks for
   * an equal limit shares its count. Called the first time this instance meets the key (and again
   * after the engine forgot it), on the calling thread: must not block. Returns null when the
   * store cannot count keys (the default): the key is then counted on this instance alone.
   */
  default @Nullable ClusterCounter keyCounter(ClusterKeyLimit limit) {
    return null;
  }

  /**
   * Returns the leases of one limit ({@link ClusterLeases}), for {@link ClusterOptions#lease()}:
   * every instance that asks for an equal limit shares its count, with the instances that ask
   * {@link #counter} for it. Called when a rule is loaded; must not block. Returns null when the
   * store cannot lease (the default): the engine then asks {@link #counter}'s per call.
   */
  default @Nullable ClusterLeases leases(ClusterLimit limit) {
    return null;
  }

  /**
   * Returns the leases of one key of a cluster-mode param-flow rule, as {@link #leases} does for a
   * flow rule, sharing the key's count with {@link #keyCounter}. Called where {@link #keyCounter} is;
   * must not block. Returns null when the store cannot lease keys (the default).
   */
  default @Nullable ClusterLeases keyLeases(ClusterKeyLimit limit) {
    return null;
  }

  /**
   * Returns how many instances of the application the store last reported alive (instances
   * announce themselves to it), or {@code 0} when this client has not learned it (it does not
   * announce, or never reached the store). Must not block: the last count seen, kept while the
   * store fails. The {@link ClusterFallback#SHARE} fallback divides counts by it.
   */
  default int liveInstances() {
    return 0;
  }

  /** Starts a round trip to the store that does nothing else; for health checks. Must not block. */
  CompletableFuture<?> ping();

  /** Describes where the store is, for logs and health details ({@code redis 10.0.0.5:6379}). */
  String description();
}
