package dev.weir.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * What one shared per-key counter counts: the calls of {@code resource} that one cluster-mode
 * param-flow rule ({@code rule}) counts under one {@code key}, at a rate of {@code count} per
 * {@code duration} with {@code burst} extra permits after idling: a token bucket of
 * {@code count + burst} permits refilled at one per {@code duration / count}, as the local
 * per-key limiter.
 *
 * <p>Two instances share a count exactly when their limits have equal {@code resource}, {@code rule}
 * and {@code key}; the rate is not part of the identity.
 *
 * @param resource the guarded resource
 * @param rule which param-flow rule of the resource: {@code param=<index>} or {@code key=<expression>},
 *     and its duration, e.g. {@code param=0,1000ms}
 * @param key the key's text ({@code String.valueOf} of the argument or expression value)
 * @param count permits per {@code duration}, {@code >= 0} ({@code 0} refuses every call)
 * @param duration the period of {@code count}, positive
 * @param burst extra permits a key may use at once after idling, {@code >= 0}
 */
public record ClusterKeyLimit(String resource, String rule, String key, double count, Duration duration, int burst) {

  /** Checks the components. */
  public ClusterKeyLimit {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(duration, "duration");
    if (!(count >= 0) || Double.isInfinite(count)) {
      throw new IllegalArgumentException("count must be finite and >= 0, was " + count);
    }
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("duration must be positive, was " + duration);
    }
    if (burst < 0) {
      throw new IllegalArgumentException("burst must be >= 0, was " + burst);
    }
  }
}
