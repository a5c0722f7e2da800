package dev.weir.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * How the engine uses a {@link ClusterClient}.
 *
 * @param timeout the deadline of one decision, at most {@link #MAX_TIMEOUT}; the caller waits no
 *     longer, whatever the client's own timeouts are
 * @param fallback what decides when the store fails or misses the deadline
 * @param failureThreshold consecutive failures (errors or missed deadlines) that open the breaker
 * @param openDuration how long an open breaker keeps calls away from the store before one call probes
 *     it, at most {@link #MAX_OPEN_DURATION}
 * @param maxInFlight decisions that may wait for the store at once; further calls fall back at once, so
 *     nothing queues without bound while the store hangs
 * @param lease whether instances lease blocks of permits from the store ({@link ClusterLeases}) and
 *     spend them locally, instead of asking the store once per call
 */
public record ClusterOptions(Duration timeout, ClusterFallback fallback, int failureThreshold,
    Duration openDuration, int maxInFlight, boolean lease) {

  /** Longest {@link #timeout()}: a decision holds its caller this long at most. */
  public static final Duration MAX_TIMEOUT = Duration.ofMinutes(1);

  /** Longest {@link #openDuration()}; far below the overflow of the engine's nanosecond clock. */
  public static final Duration MAX_OPEN_DURATION = Duration.ofDays(1);

  /** The defaults: 20 ms, {@code LOCAL}, 5 failures, 1 s open, 256 in flight, no leases. */
  public static final ClusterOptions DEFAULTS =
      new ClusterOptions(Duration.ofMillis(20), ClusterFallback.LOCAL, 5, Duration.ofSeconds(1), 256, false);

  /** Options without leases: every cluster-mode call asks the store. */
  public ClusterOptions(Duration timeout, ClusterFallback fallback, int failureThreshold, Duration openDuration,
      int maxInFlight) {
    this(timeout, fallback, failureThreshold, openDuration, maxInFlight, false);
  }

  /** These options with leases on or off. */
  public ClusterOptions withLease(boolean lease) {
    return new ClusterOptions(timeout, fallback, failureThreshold, openDuration, maxInFlight, lease);
  }

  /** Checks the components. */
  public ClusterOptions {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(fallback, "fallback");
    Objects.requireNonNull(openDuration, "openDuration");
    if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new IllegalArgumentException("timeout must be positive and at most 1m, was " + timeout);
    }
    if (openDuration.isNegative() || openDuration.isZero() || openDuration.compareTo(MAX_OPEN_DURATION) > 0) {
      throw new IllegalArgumentException("openDuration must be positive and at most 1d, was " + openDuration);
    }
    if (failureThreshold < 1) {
      throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
    }
  }
}
