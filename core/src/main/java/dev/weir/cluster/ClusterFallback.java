package dev.weir.cluster;

/** What decides a cluster-mode call when the store fails, is too slow, or its breaker is open. */
public enum ClusterFallback {

  /** This instance applies the same rule alone, with a local limiter of the same count and interval. */
  LOCAL,

  /** Every such call is admitted. */
  ALLOW,

  /** Every such call is refused with a {@code FlowException}. */
  DENY
}
