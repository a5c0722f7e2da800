package dev.weir.spring.criticality;

import dev.weir.Criticality;
import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC application whose requests call guarded methods of every criticality, on the
 * request's thread, inside a context of their own, and on Spring Boot's task executor
 * ({@code @Async}); the engine's calls are recorded by {@link SeenCriticality}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableAsync
@Import(CriticalityMvcApplication.Endpoints.class)
class CriticalityMvcApplication {

  @Bean
  SeenCriticality seenCriticality() {
    return new SeenCriticality();
  }

  @Bean
  WeirBuilderCustomizer recordingSlot(SeenCriticality seen) {
    return builder -> builder.slot(seen);
  }

  @Bean
  Calls calls() {
    return new Calls();
  }

  @Bean
  Jobs jobs(Calls calls) {
    return new Jobs(calls);
  }

  /** Guarded methods of each criticality. */
  static class Calls {
    @RateLimited("plain")
    public String plain() {
      return "plain";
    }

    @RateLimited(value = "batch", criticality = Criticality.SHEDDABLE)
    public String batch() {
      return "batch";
    }

    @RateLimited(value = "checkout", criticality = Criticality.CRITICAL_PLUS)
    public String checkout() {
      return "checkout";
    }

    @Async
    @RateLimited(value = "asyncWork", criticality = Criticality.CRITICAL_PLUS)
    public CompletableFuture<String> asyncWork() {
      return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }
  }

  /** An asynchronous method that is not guarded itself, calling a guarded one on the executor's thread. */
  static class Jobs {
    private final Calls calls;

    Jobs(Calls calls) {
      this.calls = calls;
    }

    @Async
    public CompletableFuture<String> later() {
      return CompletableFuture.completedFuture(calls.plain());
    }
  }

  @RestController
  static class Endpoints {
    private final Calls calls;
    private final Jobs jobs;
    private final Weir weir;

    Endpoints(Calls calls, Jobs jobs, Weir weir) {
      this.calls = calls;
      this.jobs = jobs;
      this.weir = weir;
    }

    @GetMapping("/route/ping")
    String ping() {
      return "pong";
    }

    @GetMapping("/calls")
    String calls() {
      return calls.plain() + calls.batch() + calls.checkout();
    }

    @GetMapping("/in-context")
    String inContext() {
      return weir.callInContext("job", null, Criticality.CRITICAL_PLUS, calls::plain);
    }

    @GetMapping("/async")
    String async() {
      return calls.asyncWork().join() + jobs.later().join();
    }

    @GetMapping("/async-in-context")
    String asyncInContext() {
      return weir.callInContext("job", null, Criticality.SHEDDABLE_PLUS, () -> jobs.later().join());
    }
  }
}
