package dev.weir.cluster;

/**
 * One answer of the cluster store.
 *
 * @param admitted whether the permits were admitted and counted
 * @param remaining permits still free in the current window after this decision, {@code >= 0}
 * @param retryAfterMillis when refused, the milliseconds until enough permits leave the window; {@code 0}
 *     when admitted
 * @param stampMicros the store's clock when it decided, in microseconds since the epoch (for an exact
 *     limit, the time the admission was logged at); {@code 0} when the store does not say
 * @param refusedBy for a counter of several limits ({@link ClusterClient#counterOfAll}) that refused,
 *     the index of the first limit that did not fit; {@code 0} otherwise
 */
public record ClusterDecision(boolean admitted, long remaining, long retryAfterMillis, long stampMicros,
    int refusedBy) {

  /** A decision without a time stamp. */
  public ClusterDecision(boolean admitted, long remaining, long retryAfterMillis) {
    this(admitted, remaining, retryAfterMillis, 0, 0);
  }

  /** A decision of one limit. */
  public ClusterDecision(boolean admitted, long remaining, long retryAfterMillis, long stampMicros) {
    this(admitted, remaining, retryAfterMillis, stampMicros, 0);
  }

  /** Checks the components. */
  public ClusterDecision {
    if (remaining < 0 || retryAfterMillis < 0 || stampMicros < 0 || refusedBy < 0) {
      throw new IllegalArgumentException("remaining, retryAfterMillis, stampMicros and refusedBy must be >= 0, were "
          + remaining + ", " + retryAfterMillis + ", " + stampMicros + " and " + refusedBy);
    }
  }
}
