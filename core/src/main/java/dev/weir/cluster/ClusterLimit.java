package dev.weir.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * What one shared counter counts: the calls of {@code resource} that one cluster-mode flow rule
 * applies to ({@code scope}), at most {@code count} per sliding {@code interval} made of
 * {@link #BUCKETS} buckets.
 *
 * <p>Two instances share a count exactly when their limits have equal {@code resource},
 * {@code scope} and {@code interval}; {@code count} is not part of the identity, so an instance that
 * runs with a changed count keeps counting in the same window.
 *
 * @param resource the guarded resource
 * @param scope which calls of the resource: {@code all}, {@code origin=<name>} for a rule on one
 *     origin, {@code other=<origin>} for each origin under {@code limit-app: other}, each prefixed by
 *     {@code chain=<context>,} for a chain rule
 * @param count the shared limit per interval
 * @param interval the sliding window, a positive multiple of {@link #BUCKETS} milliseconds
 */
public record ClusterLimit(String resource, String scope, double count, Duration interval) {

  /** Buckets of the sliding window: a refused call learns its retry-after to within interval / BUCKETS. */
  public static final int BUCKETS = 10;

  /** Checks the components. */
  public ClusterLimit {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(interval, "interval");
    if (!(count >= 0) || Double.isInfinite(count)) {
      throw new IllegalArgumentException("count must be finite and >= 0, was " + count);
    }
    if (interval.toMillis() < BUCKETS || interval.toNanos() % (BUCKETS * 1_000_000L) != 0) {
      throw new IllegalArgumentException("interval must be a positive multiple of " + BUCKETS + "ms, was " + interval);
    }
  }
}
