package dev.weir.spring.autoconfigure.observation;

import dev.weir.spring.observation.ObservationRefusalObserver;
import dev.weir.spring.observation.RefusalObserver;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of refusals in traces: with an {@link ObservationRegistry} bean (Spring Boot
 * makes one with {@code spring-boot-micrometer-observation}, which the actuator brings), an
 * {@link ObservationRefusalObserver} records every refusal of a route, an {@code @RateLimited} method
 * or an outgoing call on the current observation: the event {@code weir.refused} with the
 * low-cardinality key values {@code weir.resource} and {@code weir.rule}. A {@link RefusalObserver}
 * bean of the application's own replaces it.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
public final class WeirObservationAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RefusalObserver weirRefusalObserver(ObservationRegistry registry) {
    return new ObservationRefusalObserver(registry);
  }
}
