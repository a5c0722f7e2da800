package dev.weir.sample.quotes;

import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.spring.reactive.ReactiveContext;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code GET /portfolio}: guarded through the engine's API rather than the annotation. The request's
 * Weir context (name {@code weir_web_context}, origin from the {@code X-Caller} header) is read from
 * the Reactor context, where Weir's web filter put it, and the call is entered in it when the
 * {@code Mono} is subscribed: the authority rule on {@code portfolio} then sees the caller.
 */
@RestController
class PortfolioController {

  private final Weir weir;

  PortfolioController(Weir weir) {
    this.weir = weir;
  }

  @GetMapping("/portfolio")
  Mono<List<String>> portfolio() {
    return Mono.deferContextual(reactor -> {
      ReactiveContext context = reactor.get(ReactiveContext.class);
      return Mono.fromCallable(() -> weir.callInContext(context.name(), context.origin(), () -> {
        try (Entry entry = weir.entry("portfolio")) {
          return List.of("ACME", "INITECH");
        }
      }));
    });
  }
}
