package dev.weir.spring.gateway;

import dev.weir.Resource;
import dev.weir.Weir;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Weir resources of a gateway's routes: route {@code id} is the resource {@code gateway:<id>},
 * and its handle ({@link Weir#resource(String)}) is resolved on the route's first call and kept.
 *
 * <p>At most {@value #MAX_CACHED} handles are kept: a gateway whose routes come and go (a discovery
 * locator making one route per service) could otherwise grow the cache without end. A route beyond
 * that is resolved on each call, which decides the same (a handle is only a shortcut past the
 * lookup by name). The engine's own {@code max-resources} still bounds the resources themselves.
 */
public final class GatewayResources {

  /** The prefix of a route's resource name. */
  public static final String PREFIX = "gateway:";

  /** How many route handles are kept. */
  public static final int MAX_CACHED = 1024;

  private final Weir weir;
  private final boolean rateLimitHeaders;
  private final ConcurrentHashMap<String, Resource> handles = new ConcurrentHashMap<>();

  /**
   * Creates the routes' resources of {@code weir}.
   *
   * @param weir the engine
   * @param rateLimitHeaders whether the routes' answers carry the {@code RateLimit} headers
   *     ({@code weir.web.rate-limit-headers})
   */
  public GatewayResources(Weir weir, boolean rateLimitHeaders) {
    this.weir = Objects.requireNonNull(weir, "weir");
    this.rateLimitHeaders = rateLimitHeaders;
  }

  /** The engine. */
  Weir weir() {
    return weir;
  }

  /** Whether the routes' answers carry the {@code RateLimit} headers. */
  boolean rateLimitHeaders() {
    return rateLimitHeaders;
  }

  /**
   * The resource name of route {@code routeId}.
   *
   * @param routeId the gateway's route id
   * @return {@code gateway:<routeId>}
   */
  public static String resourceName(String routeId) {
    return PREFIX + routeId;
  }

  /** The handle on route {@code routeId}'s resource. */
  Resource handle(String routeId) {
    Resource handle = handles.get(routeId);
    if (handle != null) {
      return handle;
    }
    handle = weir.resource(resourceName(routeId));
    // Racing first calls may both resolve one; either handle decides the same. The size check is
    // not atomic with the put: a few racing routes may pass MAX_CACHED by the number of threads.
    if (handles.size() < MAX_CACHED) {
      Resource raced = handles.putIfAbsent(routeId, handle);
      if (raced != null) {
        return raced;
      }
    }
    return handle;
  }
}
