package dev.weir.spring.webmvc;

import dev.weir.AuthorityException;
import dev.weir.BlockException;
import dev.weir.DegradeException;
import dev.weir.ParamFlowException;
import dev.weir.SystemBlockException;
import dev.weir.annotation.RateLimited;
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

/** A web application whose endpoints end in refusals of every kind. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({HttpTestApplication.Endpoints.class, HttpTestApplication.OwnHandling.class,
    HttpTestApplication.OwnAdvice.class, HttpTestApplication.LocalHandling.class})
class HttpTestApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  Guarded guarded() {
    return new Guarded();
  }

  /** Guarded calls without handlers: their refusals reach the HTTP layer. */
  static class Guarded {
    @RateLimited("http.limited")
    public String limited() {
      return "limited";
    }

    @RateLimited("http.retry")
    public String retry() {
      return "retry";
    }

    @RateLimited("http.partner")
    public String partner() {
      return "partner";
    }

    @RateLimited("http.chain")
    public String chain() {
      return "chain";
    }

    @RateLimited("http.own")
    public String own() {
      return "own";
    }
  }

  @RestController
  static class Endpoints {
    private final Guarded guarded;

    Endpoints(Guarded guarded) {
      this.guarded = guarded;
    }

    @GetMapping("/limited")
    String limited() {
      return guarded.limited();
    }

    @GetMapping("/retry")
    String retry() {
      return guarded.retry();
    }

    @GetMapping("/partner")
    String partner() {
      return guarded.partner();
    }

    @GetMapping("/chain")
    String chain() {
      return guarded.chain();
    }

    @GetMapping("/degrade")
    String degrade() {
      throw new DegradeException("http.degrade", null, 2_500_000_000L);
    }

    @GetMapping("/authority")
    String authority() {
      throw new AuthorityException("http.authority", null, 0);
    }

    @GetMapping("/param-flow")
    String paramFlow() {
      throw new ParamFlowException("http.param", null, 1_000_000_000L);
    }

    @GetMapping("/system")
    String system() {
      throw new SystemBlockException("http.system", null, 1);
    }
  }

  /** Its refusals are answered by the application's own advice. */
  @RestController
  static class OwnHandling {
    private final Guarded guarded;

    OwnHandling(Guarded guarded) {
      this.guarded = guarded;
    }

    @GetMapping("/own-advice")
    String own() {
      return guarded.own();
    }
  }

  @RestControllerAdvice(assignableTypes = OwnHandling.class)
  static class OwnAdvice {
    @ExceptionHandler(BlockException.class)
    ResponseEntity<String> blocked(BlockException e) {
      return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body("handled by the application: " + e.resource());
    }
  }

  /** Handles every runtime exception itself. */
  @RestController
  static class LocalHandling {
    private final Guarded guarded;

    LocalHandling(Guarded guarded) {
      this.guarded = guarded;
    }

    @GetMapping("/local-handler")
    String local() {
      return guarded.own();
    }

    @ExceptionHandler(RuntimeException.class)
    ResponseEntity<String> failed(RuntimeException e) {
      return ResponseEntity.ok("handled locally: " + e.getClass().getSimpleName());
    }
  }
}
