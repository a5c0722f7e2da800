package dev.weir.spring.keys;

import dev.weir.spring.web.RequestView;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A request view with fixed answers, as the route filters pass one: headers and query parameters from maps. */
record FixedView(Map<String, String> headers, Map<String, String> parameters) implements RequestView {

  @Override
  public @Nullable String getHeader(String name) {
    return headers.get(name);
  }

  @Override
  public @Nullable String getParameter(String name) {
    return parameters.get(name);
  }

  @Override
  public String getMethod() {
    return "GET";
  }

  @Override
  public String getRequestURI() {
    return "/api/orders";
  }

  @Override
  public String getRemoteAddr() {
    return "10.0.0.7";
  }

  /** Something a view must not show: a key expression cannot call it. */
  public String getSecret() {
    return "secret";
  }
}
