package dev.weir.spring.criticality;

import dev.weir.Criticality;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * A WebFlux application whose requests subscribe guarded publishers of every criticality, some on
 * another scheduler's thread, one under a criticality written into its Reactor context; the
 * engine's calls are recorded by {@link SeenCriticality}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(CriticalityWebFluxApplication.Endpoints.class)
class CriticalityWebFluxApplication {

  @Bean
  SeenCriticality seenCriticality() {
    return new SeenCriticality();
  }

  @Bean
  WeirBuilderCustomizer recordingSlot(SeenCriticality seen) {
    return builder -> builder.slot(seen);
  }

  /**
   * A scheduler of this application's own for the calls subscribed off the request's thread. (On
   * Reactor's shared {@code Schedulers.boundedElastic()}, a request of this application never got an
   * answer when {@code OutgoingCallsTests} had run before in the same JVM, with no thread working on
   * it; with a scheduler of its own it does.)
   */
  @Bean(destroyMethod = "dispose")
  Scheduler elastic() {
    return Schedulers.newBoundedElastic(4, 1000, "crit-elastic");
  }

  @Bean
  ReactiveCalls reactiveCalls() {
    return new ReactiveCalls();
  }

  /** Guarded publishers of each criticality. */
  static class ReactiveCalls {
    @RateLimited("rx.plain")
    public Mono<String> plain() {
      return Mono.fromCallable(() -> "plain");
    }

    @RateLimited(value = "rx.batch", criticality = Criticality.SHEDDABLE)
    public Flux<String> batch() {
      return Flux.just("b", "atch");
    }

    @RateLimited(value = "rx.checkout", criticality = Criticality.CRITICAL_PLUS)
    public Mono<String> checkout() {
      return Mono.just("checkout");
    }
  }

  @RestController
  static class Endpoints {
    private final ReactiveCalls calls;
    private final Scheduler elastic;

    Endpoints(ReactiveCalls calls, Scheduler elastic) {
      this.calls = calls;
      this.elastic = elastic;
    }

    @GetMapping("/route/ping")
    Mono<String> ping() {
      return Mono.just("pong");
    }

    /** The guarded publishers, subscribed on another scheduler's thread: no thread-local can help there. */
    @GetMapping("/calls")
    Mono<String> calls() {
      return Mono.defer(() -> calls.plain()
              .concatWith(calls.batch())
              .concatWith(calls.checkout())
              .collectList()
              .map(parts -> String.join("", parts)))
          .subscribeOn(elastic);
    }

    /** A criticality the application writes into the chain. */
    @GetMapping("/written")
    Mono<String> written() {
      return calls.plain().contextWrite(Context.of(Criticality.class, Criticality.SHEDDABLE_PLUS));
    }
  }
}
