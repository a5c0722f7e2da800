package dev.weir.spring.docs.examples.web;

import dev.weir.spring.webflux.ReactiveOriginResolver;
import dev.weir.spring.webmvc.OriginResolver;
import java.security.Principal;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/** The HTTP page's origin resolvers: the caller's identity from a lookup (WebFlux) or the principal (Spring MVC). */
public final class OriginResolvers {

  private OriginResolvers() {
  }

  /** Looks up who owns an API key, without blocking. */
  public interface ApiKeys {
    Mono<String> ownerOf(String apiKey);
  }

  /** WebFlux: the owner of the request's API key. */
  @Configuration(proxyBeanMethods = false)
  public static class Reactive {
    // tag::reactive-origin[]
    @Bean
    ReactiveOriginResolver apiKeyOrigin(ApiKeys keys) {        // ApiKeys: your reactive lookup
      return exchange -> {
        String apiKey = exchange.getRequest().getHeaders().getFirst("X-Api-Key");
        return apiKey == null ? Mono.empty() : keys.ownerOf(apiKey);
      };
    }
    // end::reactive-origin[]
  }

  /** Spring MVC: the authenticated principal's name. */
  @Configuration(proxyBeanMethods = false)
  public static class Servlet {
    // tag::servlet-origin[]
    @Bean
    OriginResolver principalOrigin() {                         // runs after Spring Security's filters
      return request -> {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
      };
    }
    // end::servlet-origin[]
  }
}
