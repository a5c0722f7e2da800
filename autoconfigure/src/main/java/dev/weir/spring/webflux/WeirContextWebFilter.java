package dev.weir.spring.webflux;

import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.web.WebContext;
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
 */
public final class WeirContextWebFilter implements WebFilter, Ordered {

  /** The filter's default order: after Spring Security's filters, so an origin can use the principal. */
  public static final int DEFAULT_ORDER = 0;

  private final ReactiveOriginResolver originResolver;

  /**
   * Creates the filter.
   *
   * @param originResolver tells each request's origin
   */
  public WeirContextWebFilter(ReactiveOriginResolver originResolver) {
    this.originResolver = originResolver;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    return originResolver.resolveOrigin(exchange)
        .defaultIfEmpty("")
        .flatMap(origin -> {
          ReactiveContext context = new ReactiveContext(WebContext.NAME, origin);
          return chain.filter(exchange).contextWrite(reactor -> reactor.put(ReactiveContext.class, context));
        });
  }

  @Override
  public int getOrder() {
    return DEFAULT_ORDER;
  }
}
