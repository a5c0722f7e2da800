package dev.weir.spring.docs.examples.web;

import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.spring.reactive.ReactiveContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The HTTP page's WebFlux example: code using the engine's API reads the request's Weir context from Reactor's. */
@RestController
public class ReportController {

  /** Builds reports for a caller. */
  public interface Reports {
    String build(String origin);
  }

  private final Weir weir;
  private final Reports reports;

  public ReportController(Weir weir, Reports reports) {
    this.weir = weir;
    this.reports = reports;
  }

  // tag::report[]
  @GetMapping("/report")
  Mono<String> report() {
    return Mono.deferContextual(reactor -> {
      ReactiveContext context = reactor.get(ReactiveContext.class);
      return Mono.fromCallable(() -> weir.callInContext(context.name(), context.origin(), () -> {
        try (Entry entry = weir.entry("report")) {
          return reports.build(context.origin());
        }
      }));
    });
  }
  // end::report[]
}
