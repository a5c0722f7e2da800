package dev.weir.spring.webroutes;

import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** A WebFlux application whose requests are guarded by routes. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ReactiveRoutesApplication.Endpoints.class)
class ReactiveRoutesApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @RestController
  static class Endpoints {
    @GetMapping("/rx/api/ping")
    Mono<String> ping() {
      return Mono.just("pong");
    }

    @GetMapping("/rx/api/fail")
    Mono<String> fail() {
      return Mono.error(new IllegalStateException("broken"));
    }

    @GetMapping("/rx/partners/list")
    Mono<String> partners() {
      return Mono.just("partners");
    }
  }
}
