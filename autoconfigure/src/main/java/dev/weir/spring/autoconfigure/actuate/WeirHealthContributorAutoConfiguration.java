package dev.weir.spring.autoconfigure.actuate;

import dev.weir.Weir;
import dev.weir.spring.actuate.WeirHealthIndicator;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.rules.RuleSources;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code weir} health contributor ({@link WeirHealthIndicator}): always
 * {@code UP}, with the circuits that are not closed in its details. Off with
 * {@code management.health.weir.enabled=false}.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class,
    beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(Health.class)
@ConditionalOnBean(Weir.class)
public final class WeirHealthContributorAutoConfiguration {

  // The health module's conditions on the method: they are read only once the class condition holds.
  @Bean
  @ConditionalOnEnabledHealthIndicator("weir")
  @ConditionalOnMissingBean(name = "weirHealthIndicator")
  WeirHealthIndicator weirHealthIndicator(Weir weir, ObjectProvider<RuleSources> sources,
      ObjectProvider<FleetSync> store) {
    RuleSources ruleSources = sources.getIfAvailable();
    return new WeirHealthIndicator(weir, ruleSources != null && ruleSources.isAttached() ? ruleSources : null,
        store.getIfUnique());
  }
}
