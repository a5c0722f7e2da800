package dev.weir.rule;

/** What trips a circuit breaker. */
public enum DegradeStrategy {
  /** The share of calls slower than {@code slow-call-threshold}. */
  SLOW_RATIO,
  /** The share of calls that failed. */
  ERROR_RATIO,
  /** The number of calls that failed. */
  ERROR_COUNT
}
