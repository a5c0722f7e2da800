package dev.weir.spring.fleet;

import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * An instance of a fleet: an engine on a driven ticker (its last second stays put, so its counts
 * per second are exact), publishing its traffic to the test's {@code redis-server}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class FleetTrafficApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }
}
