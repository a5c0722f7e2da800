package dev.weir.cluster;

/**
 * One answer of the cluster store.
 *
 * @param admitted whether the permits were admitted and counted
 * @param remaining permits still free in the current window after this decision, {@code >= 0}
 * @param retryAfterMillis when refused, the milliseconds until enough permits leave the window; {@code 0}
 *     when admitted
 */
public record ClusterDecision(boolean admitted, long remaining, long retryAfterMillis) {

  /** Checks the components. */
  public ClusterDecision {
    if (remaining < 0 || retryAfterMillis < 0) {
      throw new IllegalArgumentException("remaining and retryAfterMillis must be >= 0, were " + remaining + " and "
          + retryAfterMillis);
    }
  }
}
