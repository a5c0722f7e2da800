package dev.weir.spring.webmvc;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Tells who sends an inbound HTTP request: its origin, as matched by {@code limit-app} (and, in a
 * later version, by authority rules). Declare a bean of this type to replace the default, which
 * reads the header named by {@code weir.web.origin-header} (or gives no origin when unset).
 */
@FunctionalInterface
public interface OriginResolver {

  /** Returns the origin of {@code request}, or null (or empty) when it is unknown. */
  @Nullable String resolveOrigin(HttpServletRequest request);

  /** Returns a resolver that reads the origin from request header {@code name}, trimmed. */
  static OriginResolver header(String name) {
    return request -> {
      String value = request.getHeader(name);
      return value == null ? null : value.strip();
    };
  }

  /** Returns a resolver that gives every request no origin. */
  static OriginResolver none() {
    return request -> null;
  }
}
