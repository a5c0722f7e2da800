package dev.weir.spring.autoconfigure.refresh;

import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.rules.RuleSources;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of rule refresh with Spring Cloud's context on the classpath: when an
 * {@link EnvironmentChangeEvent} names a {@code weir.*} key (after a {@code /actuator/refresh}, a
 * config-server push, a {@code ContextRefresher.refresh()}), the {@code weir.*} rules are bound
 * again from the environment and re-applied through {@link RuleSources}, with the validation of the
 * start. Without Spring Cloud nothing of this is loaded.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class)
@ConditionalOnClass(EnvironmentChangeEvent.class)
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBean(RuleSources.class)
public final class WeirRefreshAutoConfiguration {

  @Bean
  WeirRulesRefresher weirRulesRefresher(Environment environment, RuleSources sources) {
    return new WeirRulesRefresher(environment, sources);
  }
}
