package dev.weir.spring.properties;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One route, as bound from {@code weir.web.routes[*]}: requests whose path matches {@code path}
 * (a Spring {@code PathPattern}), whose method is one of {@code methods} (any when empty) and that
 * carry every header of {@code headers} with its value, are guarded as {@code resource} before any
 * controller runs. {@link WeirPropertiesValidator} reports what is missing or out of range.
 */
public final class RouteProperties {

  /** The resource the matched requests are guarded as; its rules are written as for any resource. */
  private @Nullable String resource;

  /** A Spring PathPattern, e.g. /api/** or /orders/{id}, matched against the path within the application. */
  private @Nullable String path;

  /** HTTP methods the route applies to, e.g. [GET, POST]; empty means every method. */
  private List<String> methods = new ArrayList<>();

  /** Headers a request must carry, with these values (names case-insensitive, values exact). */
  private Map<String, String> headers = new LinkedHashMap<>();

  /** Permits one request takes (weighted requests), at least 1. */
  private int permits = 1;

  public @Nullable String getResource() {
    return resource;
  }

  public void setResource(@Nullable String resource) {
    this.resource = resource;
  }

  public @Nullable String getPath() {
    return path;
  }

  public void setPath(@Nullable String path) {
    this.path = path;
  }

  public List<String> getMethods() {
    return methods;
  }

  public void setMethods(List<String> methods) {
    this.methods = methods;
  }

  public Map<String, String> getHeaders() {
    return headers;
  }

  public void setHeaders(Map<String, String> headers) {
    this.headers = headers;
  }

  public int getPermits() {
    return permits;
  }

  public void setPermits(int permits) {
    this.permits = permits;
  }
}
