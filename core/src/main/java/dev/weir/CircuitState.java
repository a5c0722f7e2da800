package dev.weir;

/** The state of a circuit breaker. */
public enum CircuitState {
  /** Calls pass; outcomes are watched. */
  CLOSED,
  /** Calls are refused until the open duration has passed. */
  OPEN,
  /** One probe call is in flight; the others are refused until its outcome is known. */
  HALF_OPEN
}
