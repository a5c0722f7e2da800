package dev.weir.spring.fleet;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;

/**
 * An instance of a fleet: the {@code weir} endpoint open for writes, the rules store on. With
 * {@code fleet-test.traffic: true} it has a {@link FleetTraffic} whose sums the test sets.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class FleetTestApplication {

  @Bean
  @ConditionalOnBooleanProperty("fleet-test.traffic")
  FixedTraffic fixedTraffic() {
    return new FixedTraffic();
  }

  /** Traffic sums as a test sets them. */
  static final class FixedTraffic implements FleetTraffic {

    volatile Map<String, Map<String, Object>> sums = new LinkedHashMap<>();

    @Override
    public Map<String, Map<String, Object>> summed() {
      return sums;
    }
  }
}
