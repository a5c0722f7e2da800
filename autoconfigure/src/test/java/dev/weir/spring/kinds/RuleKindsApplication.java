package dev.weir.spring.kinds;

import dev.weir.DegradeException;
import dev.weir.EntryType;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** An application with a rule of every kind from YAML, answering over HTTP. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RuleKindsApplication.Endpoints.class)
class RuleKindsApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  Guarded guarded() {
    return new Guarded();
  }

  /** A failure the breakers count. */
  static final class DownstreamFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DownstreamFailure() {
      super("downstream failed");
    }
  }

  static class Guarded {
    @RateLimited("kinds.breaker")
    public String breaker(boolean fail) {
      if (fail) {
        throw new DownstreamFailure();
      }
      return "ok";
    }

    @RateLimited(value = "kinds.typed", blockHandler = "onDegrade")
    public String typed(boolean fail) {
      if (fail) {
        throw new DownstreamFailure();
      }
      return "ok";
    }

    @RateLimited(value = "kinds.typedFlow", blockHandler = "onDegrade")
    public String typedFlow(boolean fail) {
      return "ok";
    }

    private String onDegrade(boolean fail, DegradeException e) {
      return "degraded, retry in " + e.retryAfter().toSeconds() + "s";
    }

    @RateLimited("kinds.product")
    public String product(String id) {
      return "product " + id;
    }

    @RateLimited("kinds.admin")
    public String admin() {
      return "admin";
    }

    @RateLimited("kinds.status")
    public String status() {
      return "status";
    }

    @RateLimited(value = "kinds.inbound", entryType = EntryType.IN)
    public String inbound() {
      return "inbound";
    }
  }

  @RestController
  static class Endpoints {
    private final Guarded guarded;

    Endpoints(Guarded guarded) {
      this.guarded = guarded;
    }

    @GetMapping("/breaker")
    String breaker(@RequestParam(defaultValue = "false") boolean fail) {
      try {
        return guarded.breaker(fail);
      } catch (DownstreamFailure e) {
        return "failed";
      }
    }

    @GetMapping("/typed")
    String typed(@RequestParam(defaultValue = "false") boolean fail) {
      try {
        return guarded.typed(fail);
      } catch (DownstreamFailure e) {
        return "failed";
      }
    }

    @GetMapping("/typed-flow")
    String typedFlow() {
      return guarded.typedFlow(false);
    }

    @GetMapping("/products/{id}")
    String product(@PathVariable String id) {
      return guarded.product(id);
    }

    @GetMapping("/admin")
    String admin() {
      return guarded.admin();
    }

    @GetMapping("/status")
    String status() {
      return guarded.status();
    }

    @GetMapping("/inbound")
    String inbound() {
      return guarded.inbound();
    }
  }
}
