package dev.weir.spring.web;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads one parameter of a raw query string ({@code a=1&b=x+y}), decoded as WebFlux decodes its
 * query parameters: UTF-8, {@code +} as a space, a malformed escape left as it is. One pass over
 * the query, so linear in its length.
 */
public final class QueryParameters {

  private QueryParameters() {
  }

  /**
   * Returns the first value of parameter {@code name} in {@code query} (without the {@code ?}): the
   * empty string for a parameter without {@code =}; null when the query has no such parameter.
   */
  public static @Nullable String first(@Nullable String query, String name) {
    if (query == null || query.isEmpty()) {
      return null;
    }
    int start = 0;
    int length = query.length();
    while (start <= length) {
      int end = query.indexOf('&', start);
      if (end < 0) {
        end = length;
      }
      if (end > start) {
        int nameEnd = start;
        while (nameEnd < end && query.charAt(nameEnd) != '=') { // within this pair only: linear overall
          nameEnd++;
        }
        if (decode(query.substring(start, nameEnd)).equals(name)) {
          return nameEnd == end ? "" : decode(query.substring(nameEnd + 1, end));
        }
      }
      start = end + 1;
    }
    return null;
  }

  private static String decode(String raw) {
    if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) {
      return raw;
    }
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      return raw;
    }
  }
}
