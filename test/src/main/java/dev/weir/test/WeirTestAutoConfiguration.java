package dev.weir.test;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Imported by {@link AutoConfigureWeirTest} (see
 * {@code META-INF/spring/dev.weir.test.AutoConfigureWeirTest.imports}): one {@link DrivenTicker}
 * bean, which {@link WeirAutoConfiguration} then takes as the engine's {@link Ticker} and
 * {@link Sleeper}. It backs off when the context has either already: a second {@code Ticker} or
 * {@code Sleeper} would leave the engine with two candidates for one role.
 */
@AutoConfiguration(before = WeirAutoConfiguration.class)
final class WeirTestAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean({Ticker.class, Sleeper.class})
  DrivenTicker weirDrivenTicker() {
    return new DrivenTicker();
  }
}
