package dev.weir.spring.webmvc;

import dev.weir.spring.web.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The servlet request the calling thread serves (Spring MVC binds it to the thread), for calls
 * guarded outside a route that key on the request: its read-only {@link RequestView} and its
 * principal's name. Null outside a servlet request. Only call when the servlet API and Spring MVC
 * are on the class path.
 */
public final class CurrentServletRequest {

  private CurrentServletRequest() {
  }

  private static @Nullable HttpServletRequest request() {
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    return attributes instanceof ServletRequestAttributes servlet ? servlet.getRequest() : null;
  }

  /** The view of the current request, or null. */
  public static @Nullable RequestView view() {
    HttpServletRequest request = request();
    return request == null ? null : new ServletRequestView(request);
  }

  /** The name of the current request's principal, or null (no request, or unauthenticated). */
  public static @Nullable String principal() {
    HttpServletRequest request = request();
    Principal principal = request == null ? null : request.getUserPrincipal();
    return principal == null ? null : principal.getName();
  }
}
