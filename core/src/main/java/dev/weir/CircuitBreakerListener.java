package dev.weir;

import dev.weir.rule.DegradeRule;

/**
 * Told of every state change of every circuit breaker of an engine. Called on the thread that
 * caused the change, after it happened; keep it quick and do not throw (a throwing listener is
 * logged and skipped).
 */
@FunctionalInterface
public interface CircuitBreakerListener {

  /**
   * A breaker changed state.
   *
   * @param rule the breaker's rule (its resource is {@code rule.resource()})
   * @param from the state before
   * @param to the state now
   * @param reason why, for logs: the measure that tripped it, or the probe's outcome
   */
  void onStateChange(DegradeRule rule, CircuitState from, CircuitState to, String reason);
}
