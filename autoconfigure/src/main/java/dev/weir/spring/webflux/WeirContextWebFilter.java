package dev.weir.spring.webflux;

import dev.weir.Criticality;
import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.web.CriticalityClaim;
import dev.weir.spring.web.WebContext;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Puts each inbound WebFlux request in the Weir context {@value WebContext#NAME}, with the origin
 * that the {@link ReactiveOriginResolver} gives it: the rest of the filter chain and the handler run
 * with a {@link ReactiveContext} under the key {@code ReactiveContext.class} in their Reactor
 * context. Guarded reactive calls subscribed while the request is served then find it there, on
 * whichever thread they run; no thread-local is set. Code that calls the engine directly reads it
 * with {@code Mono.deferContextual} and enters the call in
 * {@code weir.callInContext(context.name(), context.origin(), ...)}.
 *
 * <p>The filter runs at {@link #DEFAULT_ORDER}, after Spring Security's web filter chain (order
 * -100), so that a resolver can use the authenticated principal. It replaces a
 * {@code ReactiveContext} written by a filter that runs before it.
 *
 * <p>With a criticality header ({@code weir.web.criticality-header}), the request's claim
 * ({@link CriticalityClaim}) goes into the same Reactor context under the key
 * {@code CriticalityClaim.class}: the guarded calls of the request take the lower of their own
 * criticality and the claim. A header that names no criticality puts nothing there.
 */
public final class WeirContextWebFilter implements WebFilter, Ordered {

  /** The filter's default order: after Spring Security's filters, so an origin can use the principal. */
  public static final int DEFAULT_ORDER = 0;

  private final ReactiveOriginResolver originResolver;
  private final @Nullable String criticalityHeader;

  /**
   * Creates the filter, reading no criticality header.
   *
   * @param originResolver tells each request's origin
   */
  public WeirContextWebFilter(ReactiveOriginResolver originResolver) {
    this(originResolver, null);
  }

  /**
   * Creates the filter.
   *
   * @param originResolver tells each request's origin
   * @param criticalityHeader the request header whose value is the request's claimed criticality,
   *     or null (or blank) to read none
   */
  public WeirContextWebFilter(ReactiveOriginResolver originResolver, @Nullable String criticalityHeader) {
    this.originResolver = originResolver;
    this.criticalityHeader = criticalityHeader == null || criticalityHeader.isBlank() ? null
        : criticalityHeader.strip();
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    return originResolver.resolveOrigin(exchange)
        .defaultIfEmpty("")
        .flatMap(origin -> {
          ReactiveContext context = new ReactiveContext(WebContext.NAME, origin);
          Criticality claim = claim(exchange);
          return chain.filter(exchange).contextWrite(reactor -> claim == null
              ? reactor.put(ReactiveContext.class, context)
              : reactor.put(ReactiveContext.class, context).put(CriticalityClaim.class, claim));
        });
  }

  private @Nullable Criticality claim(ServerWebExchange exchange) {
    String header = criticalityHeader;
    if (header == null) {
      return null;
    }
    List<String> values = exchange.getRequest().getHeaders().get(header);
    return values == null ? null : CriticalityClaim.parse(values.iterator());
  }

  @Override
  public int getOrder() {
    return DEFAULT_ORDER;
  }
}
