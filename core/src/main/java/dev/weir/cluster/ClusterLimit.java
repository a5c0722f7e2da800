package dev.weir.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * What one shared counter counts: the calls of {@code resource} that one cluster-mode flow rule
 * applies to ({@code scope}), at most {@code count} per sliding {@code interval} made of
 * {@link #BUCKETS} buckets, or, when {@code exact}, at most {@code count} in any span of length
 * {@code interval} (a log of admission times in the store; {@code count} at most
 * {@link #EXACT_MAX_COUNT}).
 *
 * <p>Two instances share a count exactly when their limits have equal {@code resource},
 * {@code scope}, {@code interval} and {@code exact}; {@code count} is not part of the identity, so
 * an instance that runs with a changed count keeps counting in the same window.
 *
 * @param resource the guarded resource
 * @param scope which calls of the resource: {@code all}, {@code origin=<name>} for a rule on one
 *     origin, {@code other=<origin>} for each origin under {@code limit-app: other} (the origin is a
 *     caller's, so it is encoded as {@link ClusterKeyLimit#key()} is: {@link ClusterKeyLimit#KEY_CHARACTERS}
 *     only, at most {@link ClusterKeyLimit#MAX_KEY_LENGTH}), {@code other=*} for the origins beyond
 *     the engine's bound, each prefixed by {@code chain=<context>,} for a chain rule and followed by
 *     {@code ,shadow} for a rule in shadow mode (its own counter: it never takes from a rule in force)
 * @param count the shared limit per interval
 * @param interval the sliding window, a positive multiple of {@link #BUCKETS} milliseconds
 * @param exact whether every {@code interval}-long span holds at most {@code count} admissions (a
 *     whole {@code count} up to {@link #EXACT_MAX_COUNT}), instead of the bucketed window
 */
public record ClusterLimit(String resource, String scope, double count, Duration interval, boolean exact) {

  /** Buckets of the sliding window: a refused call learns its retry-after to within interval / BUCKETS. */
  public static final int BUCKETS = 10;

  /**
   * Largest {@code count} of an {@code exact} limit. The store keeps one entry per admission of the
   * last interval (about 100 bytes each in a Redis sorted set, so at most about 1 MB per limit), and
   * one decision may have to drop up to {@code count} expired entries at once, which holds Redis'
   * single thread for that long (a few milliseconds at this bound).
   */
  public static final int EXACT_MAX_COUNT = 10_000;

  /** A bucketed (not exact) limit. */
  public ClusterLimit(String resource, String scope, double count, Duration interval) {
    this(resource, scope, count, interval, false);
  }

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
    if (exact && (count > EXACT_MAX_COUNT || count != Math.rint(count))) {
      throw new IllegalArgumentException("an exact count must be a whole number up to " + EXACT_MAX_COUNT + ", was "
          + count);
    }
  }
}
