package dev.weir.spring.client;

import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * An application that calls a partner: every auto-configuration on the test class path, so its
 * {@code RestClient.Builder}, {@code RestTemplateBuilder} and {@code WebClient.Builder} are Spring
 * Boot's own, and a {@link ManualTicker} that only the test moves.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ClientApp {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }
}
