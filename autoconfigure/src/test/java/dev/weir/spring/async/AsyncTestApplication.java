package dev.weir.spring.async;

import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The application of the asynchronous and reactive method tests, on a ticker the tests drive (the
 * limits used here do not depend on time; response times are then exact).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class AsyncTestApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  StageService stageService() {
    return new StageService();
  }

  @Bean
  WeighedService weighedService() {
    return new WeighedService();
  }

  @Bean
  ReactiveService reactiveService() {
    return new ReactiveService();
  }

  @Bean
  BreakerService breakerService() {
    return new BreakerService();
  }
}
