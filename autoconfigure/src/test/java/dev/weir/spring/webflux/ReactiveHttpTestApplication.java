package dev.weir.spring.webflux;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application whose endpoints call the engine (the plain core API) when their publisher is
 * subscribed, and let refusals escape as error signals.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ReactiveHttpTestApplication.Endpoints.class, ReactiveHttpTestApplication.OwnHandling.class,
    ReactiveHttpTestApplication.OwnAdvice.class, ReactiveHttpTestApplication.LocalHandling.class})
class ReactiveHttpTestApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  /** Enters {@code resource} on subscription, in the request's Weir context, and gives its context. */
  static Mono<String> guarded(Weir weir, String resource) {
    return Mono.deferContextual(reactor -> {
      ReactiveContext context = reactor.get(ReactiveContext.class);
      return Mono.fromCallable(() -> weir.callInContext(context.name(), context.origin(), () -> {
        try (Entry entry = weir.entry(resource)) {
          return resource + " in " + context.name() + " from '" + context.origin() + "'";
        }
      }));
    });
  }

  @RestController
  static class Endpoints {
    private final Weir weir;

    Endpoints(Weir weir) {
      this.weir = weir;
    }

    @GetMapping("/limited")
    Mono<String> limited() {
      return Mono.fromCallable(() -> {
        try (Entry entry = weir.entry("flux.limited")) {
          return "limited";
        }
      });
    }

    @GetMapping("/degrade")
    Mono<String> degrade() {
      return guarded(weir, "flux.degrade");
    }

    @GetMapping("/admin")
    Mono<String> admin() {
      return guarded(weir, "flux.admin");
    }

    @GetMapping("/chain")
    Mono<String> chain() {
      return guarded(weir, "flux.chain");
    }

    @GetMapping("/context")
    Mono<String> context() {
      return Mono.deferContextual(reactor -> {
        ReactiveContext context = reactor.get(ReactiveContext.class);
        return Mono.just(context.name() + "|" + context.origin());
      });
    }

    /** A refusal as the cause of another error is not a refusal answered by Weir (as in Spring MVC). */
    @GetMapping("/wrapped")
    Mono<String> wrapped() {
      return Mono.error(new IllegalStateException("wrapped", new FlowException("flux.wrapped", null, 0)));
    }

    @GetMapping("/failed")
    Mono<String> failed() {
      return Mono.error(new IllegalStateException("not a refusal"));
    }
  }

  /** Its refusals are answered by the application's own advice. */
  @RestController
  static class OwnHandling {
    private final Weir weir;

    OwnHandling(Weir weir) {
      this.weir = weir;
    }

    @GetMapping("/own-advice")
    Mono<String> own() {
      return guarded(weir, "flux.own");
    }
  }

  @RestControllerAdvice(assignableTypes = OwnHandling.class)
  static class OwnAdvice {
    @ExceptionHandler(BlockException.class)
    ResponseEntity<String> blocked(BlockException e) {
      return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body("handled by the application: " + e.resource());
    }
  }

  /** Handles refusals in the controller itself. */
  @RestController
  static class LocalHandling {
    private final Weir weir;

    LocalHandling(Weir weir) {
      this.weir = weir;
    }

    @GetMapping("/local-handler")
    Mono<String> local() {
      return guarded(weir, "flux.own");
    }

    @ExceptionHandler(BlockException.class)
    Mono<ResponseEntity<String>> blocked(BlockException e) {
      return Mono.just(ResponseEntity.ok("handled locally: " + e.getClass().getSimpleName()));
    }
  }
}
