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
 * <p>The key comes from a caller, so the engine encodes it before a store sees it: {@code key} holds
 * {@link #KEY_CHARACTERS} only, at most {@link #MAX_KEY_LENGTH} of them, and two different keys
 * never have one text. A store may therefore put it in its own key names as it is: no character of
 * it can end a Redis hash tag or stand for a separator.
 *
 * @param resource the guarded resource
 * @param rule which param-flow rule of the resource: {@code param=<index>} or {@code key=<expression>}
 *     (an expression longer than 128 characters, or with characters other than printable ASCII, by
 *     its digest: {@code key-sha256=<base64url>}), and its duration, e.g. {@code param=0,1000ms};
 *     then {@code ,shadow} for a rule in shadow mode, and {@code ,#<n>} for the n-th (from 2) of the
 *     resource's cluster-mode param-flow rules that would otherwise have the same name, in their
 *     order: no two rules of a resource have one name. Its count, burst and exceptions are not part
 *     of it, so a rule whose count changes keeps its keys' counts
 * @param key the key's text: a string key of at most 128 characters percent-encoded (UTF-8; letters,
 *     digits and {@code -._~} as they are), {@code !!sha256=<base64url>} for a longer string key
 *     (the SHA-256 the engine keeps it by), {@code !null} for the null keys of a
 *     {@code null-key: shared} rule, {@code !<class>=<text>} for a key of another type, and
 *     {@code !sha256=<base64url>} of any of these longer than {@link #MAX_KEY_LENGTH} (or starting
 *     with {@code !sha256=})
 * @param count permits per {@code duration}, {@code >= 0} ({@code 0} refuses every call)
 * @param duration the period of {@code count}, positive
 * @param burst extra permits a key may use at once after idling, {@code >= 0}
 */
public record ClusterKeyLimit(String resource, String rule, String key, double count, Duration duration, int burst) {

  /** The characters of {@link #key()}: ASCII letters and digits, and {@code -._~%!=}. */
  public static final String KEY_CHARACTERS = "A-Z a-z 0-9 - . _ ~ % ! =";

  /** The longest {@link #key()}. */
  public static final int MAX_KEY_LENGTH = 128;

  /** Checks the components. */
  public ClusterKeyLimit {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(key, "key");
    if (key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException("key must be at most " + MAX_KEY_LENGTH + " characters, was " + key.length());
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "-._~%!=".indexOf(c) >= 0;
      if (!allowed) {
        throw new IllegalArgumentException("key must hold " + KEY_CHARACTERS + " only (an encoded key), had '"
            + (c < 0x20 || c > 0x7E ? String.format("\\u%04x", (int) c) : String.valueOf(c)) + "' at " + i);
      }
    }
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
