package dev.weir.spring.web;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * One route of {@code weir.web.routes}: requests it matches are guarded as {@link #resource()},
 * taking {@link #permits()} permits, before any controller runs.
 *
 * @param resource the resource matched requests are guarded as
 * @param pattern the path pattern, matched against the path within the application
 * @param methods the HTTP methods it applies to, upper case; empty for all. A route listing
 *     {@code GET} also matches {@code HEAD}: Spring MVC and WebFlux answer a {@code HEAD} with the
 *     {@code GET} handler, so a route that did not would let the same handler run unguarded
 * @param headers headers a request must carry, by lower-case name, with their exact values
 * @param permits the permits one request takes
 */
public record Route(String resource, PathPattern pattern, Set<String> methods, Map<String, String> headers,
    int permits) {

  /**
   * The names a route's key expressions give its arguments: a {@link RequestView} of the request,
   * then the principal's name.
   */
  public static final List<String> ARGUMENT_NAMES = List.of("request", "principal");

  /** The types of a route's arguments, in the order of {@link #ARGUMENT_NAMES}. */
  public static final List<Class<?>> ARGUMENT_TYPES = List.of(RequestView.class, String.class);

  /** Copies the collections. */
  public Route {
    methods = Set.copyOf(methods);
    headers = Map.copyOf(headers);
  }

  /** Returns the first of {@code routes} that matches the request, or null. */
  public static @Nullable Route first(List<Route> routes, PathContainer path, String method,
      UnaryOperator<@Nullable String> header) {
    int at = indexOfFirst(routes, path, method, header);
    return at < 0 ? null : routes.get(at);
  }

  /**
   * Returns the index of the first of {@code routes} that matches the request, or -1: for a filter
   * that keeps something per route (the engine's handle on its resource) beside the list.
   */
  public static int indexOfFirst(List<Route> routes, PathContainer path, String method,
      UnaryOperator<@Nullable String> header) {
    for (int i = 0, size = routes.size(); i < size; i++) {
      if (routes.get(i).matches(path, method, header)) {
        return i;
      }
    }
    return -1;
  }

  private boolean matches(PathContainer path, String method, UnaryOperator<@Nullable String> header) {
    if (!methods.isEmpty() && !appliesTo(method.toUpperCase(Locale.ROOT))) {
      return false;
    }
    for (Map.Entry<String, String> required : headers.entrySet()) {
      if (!required.getValue().equals(header.apply(required.getKey()))) {
        return false;
      }
    }
    return pattern.matches(path);
  }

  /** Whether the route's methods take {@code method} (upper case): listed, or HEAD where GET is. */
  private boolean appliesTo(String method) {
    return methods.contains(method) || ("HEAD".equals(method) && methods.contains("GET"));
  }
}
