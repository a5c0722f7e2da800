package dev.weir.spring.webroutes;

import java.security.Principal;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application with routes keyed by the request and the principal, and a filter that
 * authenticates a request carrying {@code X-User} as that user before Weir's filters (a stand-in
 * for Spring Security, which also gives the exchange's principal as a {@code Mono}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ReactiveKeyAttackApplication.Endpoints.class)
class ReactiveKeyAttackApplication {

  @Bean
  @Order(Ordered.HIGHEST_PRECEDENCE)
  WebFilter principalFromHeader() {
    return (exchange, chain) -> {
      String user = exchange.getRequest().getHeaders().getFirst("X-User");
      if (user == null) {
        return chain.filter(exchange);
      }
      Principal principal = () -> user;
      return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    };
  }

  @RestController
  static class Endpoints {
    @GetMapping({"/rx/target/{name}", "/rx/keyed/{name}", "/rx/user/{name}", "/rx/tenant/{name}"})
    Mono<String> answer(@PathVariable String name) {
      return Mono.just(name);
    }
  }
}
