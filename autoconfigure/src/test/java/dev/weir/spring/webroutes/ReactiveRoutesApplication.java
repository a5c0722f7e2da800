package dev.weir.spring.webroutes;

import dev.weir.spring.test.ManualTicker;
import java.util.concurrent.atomic.AtomicInteger;
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
    /** How many times the handler of {@code GET /rx/reads/item} ran (a HEAD runs it too). */
    static final AtomicInteger reads = new AtomicInteger();

    @GetMapping("/rx/reads/item")
    Mono<String> read() {
      reads.incrementAndGet();
      return Mono.just("item");
    }

    @GetMapping("/rx/heads/item")
    Mono<String> head() {
      return Mono.just("item");
    }

    @GetMapping("/rx/serial/ping")
    Mono<String> serial() {
      return Mono.just("pong");
    }

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
