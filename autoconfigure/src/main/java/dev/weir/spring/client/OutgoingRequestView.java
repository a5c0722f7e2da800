package dev.weir.spring.client;

import dev.weir.spring.web.QueryParameters;
import dev.weir.spring.web.RequestView;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/**
 * What a client route's key expressions see of an outgoing request, as {@code #request}: its
 * headers as they are when the guard runs (those the application and earlier interceptors set), the
 * query parameters of its URI, its method and its raw path. {@link #getRemoteAddr()} is null: the
 * address of the other side is not known before the request is sent, and is never looked up.
 */
final class OutgoingRequestView implements RequestView {

  private final String method;
  private final URI uri;
  private final HttpHeaders headers;

  OutgoingRequestView(String method, URI uri, HttpHeaders headers) {
    this.method = method;
    this.uri = uri;
    this.headers = headers;
  }

  @Override
  public @Nullable String getHeader(String name) {
    return headers.getFirst(name);
  }

  @Override
  public @Nullable String getParameter(String name) {
    return QueryParameters.first(uri.getRawQuery(), name);
  }

  @Override
  public String getMethod() {
    return method;
  }

  @Override
  public String getRequestURI() {
    String path = uri.getRawPath();
    return path == null || path.isEmpty() ? "/" : path;
  }

  @Override
  public @Nullable String getRemoteAddr() {
    return null;
  }

  @Override
  public String toString() {
    return "OutgoingRequestView[" + method + " " + getRequestURI() + "]";
  }
}
