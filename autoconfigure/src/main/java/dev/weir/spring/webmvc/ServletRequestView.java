package dev.weir.spring.webmvc;

import dev.weir.spring.web.QueryParameters;
import dev.weir.spring.web.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/** The {@link RequestView} of a servlet request: its five reads, and nothing else of it. */
final class ServletRequestView implements RequestView {

  private final HttpServletRequest request;

  ServletRequestView(HttpServletRequest request) {
    this.request = request;
  }

  @Override
  public @Nullable String getHeader(String name) {
    return request.getHeader(name);
  }

  @Override
  public @Nullable String getParameter(String name) {
    // The query string only: ServletRequest.getParameter would read a form's body.
    return QueryParameters.first(request.getQueryString(), name);
  }

  @Override
  public String getMethod() {
    return request.getMethod();
  }

  @Override
  public String getRequestURI() {
    return request.getRequestURI();
  }

  @Override
  public @Nullable String getRemoteAddr() {
    return request.getRemoteAddr();
  }

  @Override
  public String toString() {
    return "RequestView";
  }
}
