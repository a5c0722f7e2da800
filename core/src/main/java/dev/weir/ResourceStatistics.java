package dev.weir;

import dev.weir.rule.RuleKind;

/**
 * Live statistics of one resource, over all contexts and origins. Rates ({@code ...Qps}) are counts
 * over the last second of the engine's clock; totals count since the resource was first seen and
 * never decrease. Every method reads the engine's counters at the time of the call; nothing is
 * copied. Thread-safe.
 *
 * <p>Totals are conserved: {@code totalSucceeded() + totalFailed() + activeCalls() == totalPassed()}
 * once no call is between entering and completing.
 */
public interface ResourceStatistics {

  /** Returns the resource name. */
  String resource();

  /** Returns permits admitted in the last second. */
  long passQps();

  /** Returns permits refused in the last second. */
  long blockQps();

  /** Returns calls that completed without a recorded error in the last second. */
  long successQps();

  /** Returns calls that completed with a recorded error in the last second. */
  long exceptionQps();

  /** Returns the mean response time of calls completed in the last second, in milliseconds. */
  double avgRtMillis();

  /** Returns the smallest response time of the last second, in milliseconds; 0 when none. */
  double minRtMillis();

  /** Returns admitted calls inside the resource now. */
  long activeCalls();

  /** Returns permits admitted in the last minute. */
  long passedLastMinute();

  /** Returns permits refused in the last minute. */
  long blockedLastMinute();

  /** Returns all permits ever admitted. */
  long totalPassed();

  /** Returns all permits ever refused. */
  long totalBlocked();

  /** Returns all permits ever refused by rules of {@code kind}. */
  long totalBlocked(RuleKind kind);

  /**
   * Returns all permits that rules of {@code kind} in shadow mode would have refused: the calls went
   * on (and are counted as passed, or refused by another rule). Such a rule counts exactly the
   * permits it would have refused in force, for the calls it saw; see {@code dev.weir.rule.Rule#shadow()}.
   */
  long totalShadowBlocked(RuleKind kind);

  /** Returns all calls that completed without a recorded error. */
  long totalSucceeded();

  /** Returns all calls that completed with a recorded error. */
  long totalFailed();

  /** Returns the sum of the response times of all completed calls, in nanoseconds. */
  long totalResponseTimeNanos();

  /**
   * Returns the state of the resource's circuit breakers taken together: {@code OPEN} if any is
   * open, else {@code HALF_OPEN} if any is probing, else {@code CLOSED} (also without breakers).
   */
  CircuitState circuitState();

  /**
   * Returns the current limit of the resource's {@code adaptive} flow rule (the lowest, when it has
   * several), or -1 when it has none: how many calls of the highest criticality present may be
   * inside at once now.
   */
  default int adaptiveLimit() {
    return -1;
  }

  /**
   * Returns the calls waiting now for a place under the resource's {@code threads} rules that let
   * calls over the limit wait ({@code max-queueing-time}); 0 when none does.
   */
  default long waitingCalls() {
    return 0;
  }
}
