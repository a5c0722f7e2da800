package dev.weir.spring.webroutes;

import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** A WebFlux application whose route has a circuit breaker: a request that fails, one that never answers. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ReactiveRouteBreakerApplication.Endpoints.class)
class ReactiveRouteBreakerApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @RestController
  static class Endpoints {
    @GetMapping("/rx/breaker/ok")
    Mono<String> ok() {
      return Mono.just("ok");
    }

    @GetMapping("/rx/breaker/fail")
    Mono<String> fail() {
      return Mono.error(new IllegalStateException("broken"));
    }

    @GetMapping("/rx/breaker/hang")
    Mono<String> hang() {
      return Mono.never();
    }
  }
}
