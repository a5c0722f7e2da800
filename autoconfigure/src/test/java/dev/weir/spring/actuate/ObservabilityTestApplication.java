package dev.weir.spring.actuate;

import dev.weir.annotation.RateLimited;
import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** A web application with actuator, Prometheus and guarded beans whose calls the tests count. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ObservabilityTestApplication.Endpoints.class)
class ObservabilityTestApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  Guarded guarded(ManualTicker ticker) {
    return new Guarded(ticker);
  }

  /** A failure of a guarded call. */
  static final class DownstreamFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DownstreamFailure() {
      super("downstream failed");
    }
  }

  static class Guarded {
    private final ManualTicker ticker;

    Guarded(ManualTicker ticker) {
      this.ticker = ticker;
    }

    @RateLimited("obs.limited")
    public String limited() {
      return "limited";
    }

    @RateLimited("obs.other")
    public String other() {
      return "other";
    }

    @RateLimited("obs.write")
    public String write() {
      return "write";
    }

    @RateLimited("obs.scraped")
    public String scraped() {
      return "scraped";
    }

    @RateLimited("obs.invalid")
    public String invalid() {
      return "invalid";
    }

    /** Takes {@code spend} of the test's clock, then fails or not. */
    @RateLimited("obs.flaky")
    public String flaky(Duration spend, boolean fail) {
      ticker.advance(spend);
      if (fail) {
        throw new DownstreamFailure();
      }
      return "flaky";
    }

    @RateLimited("obs.kept")
    public String kept(boolean fail) {
      if (fail) {
        throw new DownstreamFailure();
      }
      return "kept";
    }

    /** Stays inside until {@code release} opens. */
    @RateLimited("obs.held")
    public String held(CountDownLatch entered, CountDownLatch release) throws InterruptedException {
      entered.countDown();
      if (!release.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("never released");
      }
      return "held";
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

    @GetMapping("/scraped")
    String scraped() {
      return guarded.scraped();
    }

    @GetMapping("/write")
    String write() {
      return guarded.write();
    }

    @GetMapping("/invalid")
    String invalid() {
      return guarded.invalid();
    }
  }
}
