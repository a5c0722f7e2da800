package dev.weir.spring.web;

import java.lang.reflect.Array;
import java.net.URI;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ProblemDetail;

/**
 * Writes a {@link ProblemDetail} as RFC 9457 JSON, its extra properties as top-level members, with
 * no JSON library: the HTTP answers then do not depend on the application's converters or their
 * settings. Property values may be strings, numbers, booleans, maps, collections or arrays of
 * those; other objects are written as their {@code toString()}.
 */
final class ProblemJson {

  private ProblemJson() {
  }

  static String write(ProblemDetail problem) {
    StringBuilder json = new StringBuilder(256).append('{');
    URI type = problem.getType();
    member(json, "type", type != null ? type.toString() : "about:blank");
    if (problem.getTitle() != null) {
      member(json, "title", problem.getTitle());
    }
    member(json, "status", problem.getStatus());
    if (problem.getDetail() != null) {
      member(json, "detail", problem.getDetail());
    }
    if (problem.getInstance() != null) {
      member(json, "instance", problem.getInstance().toString());
    }
    Map<String, @Nullable Object> properties = problem.getProperties();
    if (properties != null) {
      properties.forEach((name, value) -> member(json, name, value));
    }
    return json.append('}').toString();
  }

  private static void member(StringBuilder json, String name, @Nullable Object value) {
    if (json.length() > 1) {
      json.append(',');
    }
    string(json, name);
    json.append(':');
    value(json, value);
  }

  private static void value(StringBuilder json, @Nullable Object value) {
    if (value == null) {
      json.append("null");
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
        || value instanceof Short || value instanceof Byte) {
      json.append(value);
    } else if (value instanceof Number number) {
      double d = number.doubleValue();
      if (Double.isFinite(d)) {
        json.append(value);
      } else {
        string(json, value.toString());
      }
    } else if (value instanceof Map<?, ?> map) {
      json.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!first) {
          json.append(',');
        }
        first = false;
        string(json, String.valueOf(entry.getKey()));
        json.append(':');
        value(json, entry.getValue());
      }
      json.append('}');
    } else if (value instanceof Iterable<?> items) {
      json.append('[');
      boolean first = true;
      for (Object item : items) {
        if (!first) {
          json.append(',');
        }
        first = false;
        value(json, item);
      }
      json.append(']');
    } else if (value.getClass().isArray()) {
      json.append('[');
      for (int i = 0; i < Array.getLength(value); i++) {
        if (i > 0) {
          json.append(',');
        }
        value(json, Array.get(value, i));
      }
      json.append(']');
    } else {
      string(json, value.toString());
    }
  }

  private static void string(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
