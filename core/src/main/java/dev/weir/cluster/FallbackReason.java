package dev.weir.cluster;

/** Why a cluster-mode call was decided by the {@link ClusterFallback} instead of the store. */
public enum FallbackReason {

  /** The store did not answer within {@link ClusterOptions#timeout()}. */
  TIMEOUT,

  /** The store answered with an error, or the client failed before asking it. */
  ERROR,

  /** The breaker is open after repeated failures: the store was not asked. */
  BREAKER_OPEN,

  /** {@link ClusterOptions#maxInFlight()} decisions were already waiting: the store was not asked. */
  SATURATED
}
