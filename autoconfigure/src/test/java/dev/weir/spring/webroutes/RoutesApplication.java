package dev.weir.spring.webroutes;

import dev.weir.annotation.RateLimited;
import dev.weir.spring.test.ManualTicker;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** An application whose requests are guarded by routes, with one annotated method behind a route. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RoutesApplication.Endpoints.class)
class RoutesApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  Orders orders() {
    return new Orders();
  }

  static class Orders {
    @RateLimited("orders.lookup")
    public String lookup(String customer) {
      return "orders of " + customer;
    }
  }

  @RestController
  static class Endpoints {
    /** How many times the handler of {@code GET /reads/item} ran (a HEAD runs it too). */
    static final AtomicInteger reads = new AtomicInteger();

    private final Orders orders;

    Endpoints(Orders orders) {
      this.orders = orders;
    }

    @GetMapping("/api/ping")
    String ping() {
      return "pong";
    }

    @GetMapping("/api/orders/{customer}")
    String orders(@PathVariable String customer) {
      return orders.lookup(customer);
    }

    @GetMapping("/api/fail")
    String fail() {
      throw new IllegalStateException("broken");
    }

    @GetMapping("/open/door")
    String open() {
      return "open";
    }

    @GetMapping("/reports/daily")
    String readReport() {
      return "report";
    }

    @PostMapping("/reports/daily")
    String writeReport() {
      return "written";
    }

    @GetMapping("/reads/item")
    String read() {
      reads.incrementAndGet();
      return "item";
    }

    @GetMapping("/heads/item")
    String head() {
      return "item";
    }

    @GetMapping("/keyed/item")
    String keyed() {
      return "item";
    }
  }
}
