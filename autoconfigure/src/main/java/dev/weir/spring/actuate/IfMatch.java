package dev.weir.spring.actuate;

import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code If-Match} header of a write to the rules store: one version, as an entity tag,
 * {@code "7"} (also {@code W/"7"} or a bare {@code 7}); {@code *} matches any version.
 */
final class IfMatch {

  private IfMatch() {
  }

  /** The version named, or null when the value names none (then see {@link #any}). */
  static @Nullable Long version(String header) {
    String value = header.trim();
    if (value.startsWith("W/")) {
      value = value.substring(2);
    }
    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
      value = value.substring(1, value.length() - 1);
    }
    if (value.isEmpty() || value.length() > 18) {
      return null;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return null;
      }
    }
    return Long.parseLong(value);
  }

  /** Whether the header matches any version: {@code *}. */
  static boolean any(String header) {
    return "*".equals(header.trim());
  }
}
