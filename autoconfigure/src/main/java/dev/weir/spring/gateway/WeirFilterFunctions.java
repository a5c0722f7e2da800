package dev.weir.spring.gateway;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.spring.web.RateLimitHeaders;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collection;
import dev.weir.Quota;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.http.HttpStatus;
import org.springframework.util.StringUtils;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Weir's filter functions for Spring Cloud Gateway's MVC server. Route {@code routeId} is the
 * resource {@code gateway:<routeId>} ({@link GatewayResources}) and the request's key, when there is
 * one, is the call's argument 0: {@code param-index: 0} in that resource's {@code param-flow} rules.
 * The limits are Weir rules on the resource ({@code weir.flow}, {@code weir.param-flow}, ...).
 *
 * <p>From the Java DSL: {@code .filter(WeirFilterFunctions.rateLimit("orders", request -> ...))}.
 * From {@code spring.cloud.gateway.mvc} YAML: the filter {@code Weir=<routeId>} (no key) or
 * {@code Weir=<routeId>,<header>} (the key is that request header's value).
 *
 * <p>A request is one inbound call ({@link EntryType#IN}) taking one permit, held while the rest of
 * the chain runs: until the backend's answer is returned to the gateway (its body is copied to the
 * client after). So a {@code threads} rule counts requests in flight to the backend, and a degrade
 * rule sees the chain's exceptions and response times. A refusal is thrown as the
 * {@link BlockException} and answered by Weir's {@code BlockExceptionResolver} (by default
 * {@code 429} with {@code Retry-After}, the {@code RateLimit} headers and a problem body): the
 * backend is never called. An admitted request's answer carries the {@code RateLimit-Policy} and
 * {@code RateLimit} headers of the quotas left, with {@code weir.web.rate-limit-headers}. As the
 * gateway's "deny empty key" does, a request whose key is missing or empty is answered
 * {@code 403 Forbidden} without being counted or forwarded.
 *
 * <p>The engine is the application context's ({@link GatewayResources} bean, auto-configured with
 * Weir and the gateway), found from the request on its first call and kept by the function.
 */
public final class WeirFilterFunctions {

  private WeirFilterFunctions() {
  }

  /**
   * Guards route {@code routeId} per route and per key.
   *
   * @param routeId the route, whose resource is {@code gateway:<routeId>}
   * @param key the request's key (argument 0); a request for which it gives null or an empty string
   *     is answered {@code 403}
   * @return the filter function
   */
  public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimit(String routeId,
      Function<ServerRequest, @Nullable String> key) {
    return new RateLimit(routeId, Objects.requireNonNull(key, "key"));
  }

  /**
   * Guards route {@code routeId} with its resource's rules, without a key (argument 0 is null: no
   * per-key rule applies).
   *
   * @param routeId the route, whose resource is {@code gateway:<routeId>}
   * @return the filter function
   */
  public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimit(String routeId) {
    return new RateLimit(routeId, null);
  }

  /**
   * The YAML filter {@code Weir=<routeId>}: as {@link #rateLimit(String)}.
   *
   * @param routeId the route
   * @return the filter function
   */
  @Shortcut
  public static HandlerFilterFunction<ServerResponse, ServerResponse> weir(String routeId) {
    return rateLimit(routeId);
  }

  /**
   * The YAML filter {@code Weir=<routeId>,<keyHeader>}: as {@link #rateLimit(String, Function)}
   * with the first value of request header {@code keyHeader} as the key.
   *
   * @param routeId the route
   * @param keyHeader the request header that holds the key
   * @return the filter function
   */
  @Shortcut
  public static HandlerFilterFunction<ServerResponse, ServerResponse> weir(String routeId, String keyHeader) {
    if (!StringUtils.hasText(keyHeader)) {
      throw new IllegalArgumentException("Weir filter of route '" + routeId + "': the key header is empty");
    }
    String header = keyHeader.strip();
    return rateLimit(routeId, request -> request.headers().firstHeader(header));
  }

  /**
   * Offers the YAML filter {@code Weir} to the gateway's filter discovery (a bean of this type; the
   * auto-configuration declares one): only the {@code weir} methods, not the Java DSL's.
   */
  public static final class FilterSupplier implements org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier {

    /** Creates the supplier. */
    public FilterSupplier() {
    }

    @Override
    public Collection<Method> get() {
      return Arrays.stream(WeirFilterFunctions.class.getMethods()).filter(method -> method.getName().equals("weir"))
          .toList();
    }
  }

  /** One route's filter function. */
  private static final class RateLimit implements HandlerFilterFunction<ServerResponse, ServerResponse> {
    private final String routeId;
    private final @Nullable Function<ServerRequest, @Nullable String> key;
    /**
     * The application context's routes, found on the first request and kept: racing first requests
     * find the same bean.
     */
    private volatile @Nullable GatewayResources resources;

    RateLimit(String routeId, @Nullable Function<ServerRequest, @Nullable String> key) {
      if (!StringUtils.hasText(routeId)) {
        throw new IllegalArgumentException("Weir filter: the route id is empty");
      }
      this.routeId = routeId;
      this.key = key;
    }

    @Override
    public ServerResponse filter(ServerRequest request, org.springframework.web.servlet.function.HandlerFunction<ServerResponse> next)
        throws Exception {
      Object[] args = {null};
      if (key != null) {
        String value = key.apply(request);
        if (value == null || value.isEmpty()) {
          return ServerResponse.status(HttpStatus.FORBIDDEN).build();
        }
        args[0] = value;
      }
      GatewayResources routes = resources(request);
      Resource resource = routes.handle(routeId);
      Entry entry = resource.entry(EntryType.IN, 1, args); // a refusal is thrown: BlockExceptionResolver answers it
      try {
        // What is left once this request is counted, as a route's answer tells it.
        List<Quota> quotas = routes.rateLimitHeaders() ? resource.quotas(args) : List.of();
        ServerResponse response = next.handle(request);
        RateLimitHeaders.write(quotas, response.headers()::set);
        return response;
      } catch (Exception | Error failed) {
        entry.recordError(failed);
        throw failed;
      } finally {
        entry.close();
      }
    }

    private GatewayResources resources(ServerRequest request) {
      GatewayResources found = resources;
      if (found == null) {
        found = MvcUtils.getApplicationContext(request).getBean(GatewayResources.class);
        resources = found;
      }
      return found;
    }

    @Override
    public String toString() {
      return "Weir rate limit of route '" + routeId + "'";
    }
  }
}
