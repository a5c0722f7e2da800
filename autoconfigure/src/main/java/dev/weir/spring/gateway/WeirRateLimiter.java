package dev.weir.spring.gateway;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Quota;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.web.BlockProblems;
import dev.weir.spring.web.RateLimitHeaders;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.http.HttpHeaders;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Weir as Spring Cloud Gateway's {@code RateLimiter} (server WebFlux), for the gateway's own
 * {@code RequestRateLimiter} filter and its {@code KeyResolver}. Route {@code routeId} is the
 * resource {@code gateway:<routeId>} ({@link GatewayResources}), and the key the resolver gives is
 * the call's argument 0: {@code param-index: 0} in that resource's {@code param-flow} rules. Every
 * rule of the resource applies as to any inbound call: {@code weir.flow} (per route, exact windows,
 * cluster mode and leases), {@code weir.param-flow} (per key), authority (the origin of the
 * request's Weir context) and system rules.
 *
 * <p>The filter's only argument read here is {@code weir-rate-limiter.permits}: how many permits a
 * request takes (default 1), as {@code requestedTokens} does for the gateway's Redis limiter. The
 * limits themselves are Weir rules, not filter arguments.
 *
 * <h2>Release</h2>
 * A rate limiter's decision is a rate decision: the gateway asks before forwarding and is told
 * nothing when the exchange ends. So each call's entry is closed as soon as it is admitted: flow and
 * per-key rules count the admission when it is made, and closing gives nothing back to them. A
 * {@code threads} rule on the resource therefore never sees a request in flight (it counts the
 * instant of the decision only), and response times and errors (for degrade rules) are not the
 * backend's. Concurrency limits and circuit breakers over the proxied exchange belong to a
 * {@code weir.web.routes} route on the gateway's path, whose call lasts until the response completes.
 *
 * <h2>Answer</h2>
 * The gateway writes the answer: its status for a refusal ({@code 429} by default) and the headers
 * of the {@link Response}, which are {@code RateLimit-Policy} and {@code RateLimit} (with
 * {@code weir.web.rate-limit-headers}, the quotas the resource's rate rules have left for this key)
 * and, on a refusal, {@code Retry-After}. The gateway's "deny empty key" ({@code deny-empty-key},
 * {@code empty-key-status-code}) is the filter's, applied before this limiter is asked.
 */
public final class WeirRateLimiter extends AbstractRateLimiter<WeirRateLimiter.Config> {

  /** The prefix of this limiter's arguments in the {@code RequestRateLimiter} filter's configuration. */
  public static final String CONFIGURATION_PROPERTY_NAME = "weir-rate-limiter";

  private static final Config DEFAULTS = new Config();

  private final GatewayResources resources;
  private final boolean rateLimitHeaders;
  private final RefusalObserver observer;

  /**
   * Creates the limiter.
   *
   * @param resources the routes' resources, which say whether to answer with the {@code RateLimit} headers
   * @param observer told of each refusal
   * @param configurationService the gateway's, which binds the filter's arguments
   */
  public WeirRateLimiter(GatewayResources resources, RefusalObserver observer,
      ConfigurationService configurationService) {
    super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
    this.resources = resources;
    this.rateLimitHeaders = resources.rateLimitHeaders();
    this.observer = observer;
  }

  @Override
  public Mono<Response> isAllowed(String routeId, String id) {
    Config config = getConfig().getOrDefault(routeId, DEFAULTS);
    Resource resource = resources.handle(routeId);
    int permits = config.getPermits();
    // Decided when subscribed, in the request's Weir context (WeirContextWebFilter's, when present).
    return Mono.deferContextual(view -> Mono.just(decide(resource, permits, id, view)));
  }

  private Response decide(Resource resource, int permits, String key, ContextView view) {
    ReactiveContext context = view.getOrDefault(ReactiveContext.class, null);
    Object[] args = {key};
    Weir weir = resources.weir();
    try {
      Entry entry = context == null ? resource.entry(EntryType.IN, permits, args)
          : weir.callInContext(context.name(), context.origin(), () -> resource.entry(EntryType.IN, permits, args));
      entry.close(); // a rate decision: see the class comment
    } catch (BlockException refused) {
      observer.refused(refused, view.getOrDefault(RefusalObserver.OBSERVATION_KEY, null));
      Map<String, String> headers = new LinkedHashMap<>();
      if (rateLimitHeaders) {
        List<Quota> quotas = quotas(resource, args, context);
        if (quotas.isEmpty()) {
          RateLimitHeaders.write(refused, headers::put);
        } else {
          RateLimitHeaders.write(quotas, headers::put);
        }
      }
      headers.put(HttpHeaders.RETRY_AFTER, Long.toString(BlockProblems.retryAfterSeconds(refused)));
      return new Response(false, headers);
    }
    if (!rateLimitHeaders) {
      return new Response(true, Map.of());
    }
    Map<String, String> headers = new LinkedHashMap<>();
    RateLimitHeaders.write(quotas(resource, args, context), headers::put);
    return new Response(true, headers);
  }

  private List<Quota> quotas(Resource resource, Object[] args, @Nullable ReactiveContext context) {
    return context == null ? resource.quotas(args)
        : resources.weir().callInContext(context.name(), context.origin(), () -> resource.quotas(args));
  }

  /**
   * A route's arguments of this limiter, bound by the gateway from the {@code RequestRateLimiter}
   * filter's {@code weir-rate-limiter.*} arguments.
   */
  public static final class Config {

    /** The most permits one request may take. */
    public static final int MAX_PERMITS = 1_000_000;

    private int permits = 1;

    /** Creates the defaults: one permit a request. */
    public Config() {
    }

    /** How many permits a request takes. */
    public int getPermits() {
      return permits;
    }

    /**
     * Sets how many permits a request takes.
     *
     * @param permits from 1 to {@link #MAX_PERMITS}
     * @throws IllegalArgumentException when out of range
     */
    public void setPermits(int permits) {
      if (permits < 1 || permits > MAX_PERMITS) {
        throw new IllegalArgumentException(
            CONFIGURATION_PROPERTY_NAME + ".permits: must be from 1 to " + MAX_PERMITS + ", was " + permits);
      }
      this.permits = permits;
    }
  }
}
