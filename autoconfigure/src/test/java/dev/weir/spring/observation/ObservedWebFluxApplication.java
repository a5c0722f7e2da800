package dev.weir.spring.observation;

import dev.weir.annotation.RateLimited;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application whose observations go through a test registry that records them. Refusals
 * happen in a route ({@code /api/**}), an {@code @RateLimited} method returning a {@code Mono}
 * ({@code /orders}) and an outgoing {@code WebClient} call ({@code /checkout}); {@code /open/**} is a
 * route that admits.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ObservedWebFluxApplication.Endpoints.class)
class ObservedWebFluxApplication {

  @Bean
  RecordedObservations recordedObservations() {
    return new RecordedObservations();
  }

  @Bean
  TestObservationRegistry observationRegistry(RecordedObservations recorded) {
    return recorded.registry();
  }

  @Bean
  Orders orders() {
    return new Orders();
  }

  static class Orders {
    @RateLimited("orders")
    public Mono<String> place() {
      return Mono.just("placed");
    }
  }

  @RestController
  static class Endpoints {
    private final Orders orders;
    private final WebClient partner;

    Endpoints(Orders orders, WebClient.Builder clients) {
      this.orders = orders;
      this.partner = clients.baseUrl("http://partner.invalid").build();
    }

    @GetMapping("/api/limited")
    Mono<String> limited() {
      return Mono.just("never");
    }

    @GetMapping("/open/fine")
    Mono<String> fine() {
      return Mono.just("fine");
    }

    @GetMapping("/orders")
    Mono<String> order() {
      return orders.place();
    }

    @GetMapping("/checkout")
    Mono<String> checkout() {
      return partner.post().uri("/pay").retrieve().bodyToMono(String.class);
    }
  }
}
