package dev.weir.spring.async;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** The application of the asynchronous and reactive method tests. */
@SpringBootConfiguration
@EnableAutoConfiguration
class AsyncTestApplication {

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
}
