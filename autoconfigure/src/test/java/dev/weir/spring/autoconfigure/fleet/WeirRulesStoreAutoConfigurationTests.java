package dev.weir.spring.autoconfigure.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.actuate.FleetRules;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.redis.WeirRedisClusterAutoConfiguration;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.fleet.RulesStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link WeirRulesStoreAutoConfiguration}: the store, the follower and the fleet's rules only with
 * {@code weir.rules-store.enabled=true}, and a start that stops, naming the property, when the store
 * cannot work. No Redis needs to run: the follower connects in the background, and fails to here.
 */
class WeirRulesStoreAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
          WeirRedisClusterAutoConfiguration.class, WeirAutoConfiguration.class, WeirRulesStoreAutoConfiguration.class))
      .withPropertyValues("spring.data.redis.port=1", "weir.cluster.enabled=true");

  @Test
  void offUnlessEnabled() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RulesStore.class)
        .doesNotHaveBean(FleetSync.class).doesNotHaveBean(FleetRules.class));
  }

  @Test
  void onWithTheStoreEnabled() {
    runner.withPropertyValues("weir.rules-store.enabled=true", "weir.cluster.key-prefix=shop").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(RulesStore.class).hasSingleBean(FleetSync.class)
          .hasSingleBean(FleetRules.class);
      assertThat(context.getBean(RulesStore.class).keyPrefix()).isEqualTo("shop:{rules}:");
      assertThat(context.getBean(FleetSync.class).appliedVersion()).isEqualTo(-1);
      MeterRegistry registry = new SimpleMeterRegistry();
      context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
      assertThat(registry.get(WeirRulesStoreAutoConfiguration.VERSION).gauge().value()).isEqualTo(-1);
      assertThat(registry.get(WeirRulesStoreAutoConfiguration.CONNECTED).gauge().value()).isZero();
    });
  }

  @Test
  void withoutSpringDataRedisTheStartStopsNamingTheProperty() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
        .withPropertyValues("weir.rules-store.enabled=true")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("weir.rules-store.enabled")
            .hasMessageContaining("needs spring-boot-starter-data-redis"));
  }
}
