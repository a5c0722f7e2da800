package dev.weir.spring.webflux;

import dev.weir.spring.web.RequestView;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpRequest;

/** The {@link RequestView} of a reactive request: its five reads, and nothing else of it. */
final class ServerRequestView implements RequestView {

  private final ServerHttpRequest request;

  ServerRequestView(ServerHttpRequest request) {
    this.request = request;
  }

  @Override
  public @Nullable String getHeader(String name) {
    return request.getHeaders().getFirst(name);
  }

  @Override
  public @Nullable String getParameter(String name) {
    return request.getQueryParams().getFirst(name);
  }

  @Override
  public String getMethod() {
    return request.getMethod().name();
  }

  @Override
  public String getRequestURI() {
    String path = request.getURI().getRawPath();
    return path == null ? "" : path;
  }

  @Override
  public @Nullable String getRemoteAddr() {
    InetSocketAddress remote = request.getRemoteAddress();
    if (remote == null) {
      return null;
    }
    InetAddress address = remote.getAddress();
    return address != null ? address.getHostAddress() : remote.getHostString();
  }

  @Override
  public String toString() {
    return "RequestView";
  }
}
