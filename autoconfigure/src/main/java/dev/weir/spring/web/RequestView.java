package dev.weir.spring.web;

import org.jspecify.annotations.Nullable;

/**
 * What a route's key expressions see of a request, as {@code #request}: five reads, and nothing
 * else of the request, its server or the application. The route filters of Spring MVC and WebFlux
 * pass a view of the live request (and the principal's name) as the call's arguments, never the
 * request itself, so a key expression written by an operator cannot reach the servlet context, the
 * application context or the server through it. The two stacks answer alike.
 *
 * <p>A view is made per request and used while the request is guarded; it holds the request, so it
 * must not be kept beyond it.
 */
public interface RequestView {

  /**
   * Returns the first value of the request header {@code name} (case-insensitive), or null when the
   * request has none.
   */
  @Nullable String getHeader(String name);

  /**
   * Returns the first value of the query parameter {@code name}, decoded (UTF-8, {@code +} as a
   * space), or null when the query has none; the body of a form is not read, so that a key never
   * consumes or waits for a request's body.
   */
  @Nullable String getParameter(String name);

  /** Returns the request's method, upper case as sent ({@code GET}, {@code POST}, ...). */
  String getMethod();

  /**
   * Returns the request's path as sent, not decoded, with the context path and without the query
   * ({@code /shop/api/orders/7}).
   */
  String getRequestURI();

  /** Returns the IP address of the client or of the last proxy, or null when it is not known. */
  @Nullable String getRemoteAddr();
}
