package dev.weir.spring.webflux;

import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Tells who sends an inbound WebFlux request: its origin, as matched by {@code limit-app} and by
 * authority rules; the WebFlux counterpart of {@code dev.weir.spring.webmvc.OriginResolver}.
 * Declare a bean of this type to replace the default, which reads the header named by
 * {@code weir.web.origin-header} (or gives no origin when unset).
 *
 * <p>The origin is given as a {@link Mono}, not as a plain value, because in WebFlux what may
 * identify a caller is often only available asynchronously: the authenticated principal
 * ({@link ServerWebExchange#getPrincipal()}, Spring Security's {@code ReactiveSecurityContextHolder})
 * or a lookup of an API key. A resolver must not block. The Mono is subscribed once per request,
 * inside the request's Reactor context, by {@link WeirContextWebFilter}; an empty Mono (or an empty
 * string) means the origin is unknown, and an error fails the request.
 */
@FunctionalInterface
public interface ReactiveOriginResolver {

  /** Returns the origin of {@code exchange}'s request; empty when it is unknown. */
  Mono<String> resolveOrigin(ServerWebExchange exchange);

  /** Returns a resolver that reads the origin from request header {@code name} (its first value), trimmed. */
  static ReactiveOriginResolver header(String name) {
    return exchange -> {
      String value = exchange.getRequest().getHeaders().getFirst(name);
      return value == null ? Mono.empty() : Mono.just(value.strip());
    };
  }

  /** Returns a resolver that gives every request no origin. */
  static ReactiveOriginResolver none() {
    return exchange -> Mono.empty();
  }
}
