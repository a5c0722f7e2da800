package dev.weir.spring.autoconfigure;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigureOrder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * Stops the start of an application on a Spring Boot version Weir does not support, with a message
 * naming the version found and the supported range, before Weir's other auto-configurations run:
 * an unsupported version would otherwise fail later, or not at all until something misbehaves.
 * {@code weir.compatibility-verifier.enabled=false} turns the check off.
 */
@AutoConfiguration(before = WeirAutoConfiguration.class)
@AutoConfigureOrder(Ordered.HIGHEST_PRECEDENCE)
@ConditionalOnProperty(prefix = "weir.compatibility-verifier", name = "enabled", matchIfMissing = true)
public final class WeirCompatibilityAutoConfiguration {

  /** The check, run when the context creates this bean. */
  @Bean
  static InitializingBean weirSpringBootCompatibility() {
    return new SpringBootCompatibility(SpringBootVersion::getVersion)::verify;
  }
}
