package dev.weir.spring.properties;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One outgoing route, as bound from {@code weir.client.routes[*]}: requests to {@code url} (a scheme,
 * a host, an optional port and a Spring {@code PathPattern}) whose method is one of {@code methods}
 * (any when empty) are guarded as {@code resource}. Checked when the client guard is created; a
 * problem stops the start naming its property path.
 */
public final class ClientRouteProperties {

  /** The resource the matched outgoing requests are guarded as; its rules are written as for any resource. */
  private @Nullable String resource;

  /**
   * scheme://host[:port] followed by a Spring PathPattern, e.g. https://payments.example.com/v1/**; a
   * port left out is the scheme's (80 for http, 443 for https), a path left out is /**.
   */
  private @Nullable String url;

  /** HTTP methods the route applies to, e.g. [POST]; empty means every method. */
  private List<String> methods = new ArrayList<>();

  public @Nullable String getResource() {
    return resource;
  }

  public void setResource(@Nullable String resource) {
    this.resource = resource;
  }

  public @Nullable String getUrl() {
    return url;
  }

  public void setUrl(@Nullable String url) {
    this.url = url;
  }

  public List<String> getMethods() {
    return methods;
  }

  public void setMethods(List<String> methods) {
    this.methods = methods;
  }
}
