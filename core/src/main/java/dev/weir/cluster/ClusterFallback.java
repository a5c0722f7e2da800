package dev.weir.cluster;

/** What decides a cluster-mode call when the store fails, is too slow, or its breaker is open. */
public enum ClusterFallback {

  /** This instance applies the same rule alone, with a local limiter of the same count and interval. */
  LOCAL,

  /**
   * This instance applies the same rule with its share of the count: {@code max(1, floor(count / n))}
   * per interval ({@code 0} when count is below 1), where {@code n} is the number of live instances
   * this instance last learned from the store ({@link ClusterClient#liveInstances()}; 1 while it
   * never learned one, which is {@link #LOCAL}).
   */
  SHARE,

  /** Every such call is admitted. */
  ALLOW,

  /** Every such call is refused with a {@code FlowException}. */
  DENY
}
