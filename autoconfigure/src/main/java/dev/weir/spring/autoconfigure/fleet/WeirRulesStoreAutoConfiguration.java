package dev.weir.spring.autoconfigure.fleet;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.actuate.FleetRules;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.redis.WeirRedisClusterAutoConfiguration;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.fleet.FleetTraffic;
import dev.weir.spring.fleet.RulesStore;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.rules.RuleSources;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of the rules store: with {@code weir.rules-store.enabled=true} (which needs
 * {@code weir.cluster.enabled=true}), the {@link RulesStore} on the application's Lettuce
 * connection factory (standalone, Sentinel or Redis Cluster alike), this instance's
 * {@link FleetSync}, which applies the store's current version as the last rule source, and the
 * {@link FleetRules} the {@code weir} endpoint writes through. With Micrometer, the gauges
 * {@code weir.rules.version} (the version this instance applies, -1 before the first) and
 * {@code weir.rules.store.connected} (1 while Redis answers, else 0). Without Spring Data Redis or
 * Jackson on the classpath, {@link WeirPropertiesValidator} stops the start, naming what is missing.
 */
@AutoConfiguration(after = {WeirAutoConfiguration.class, WeirRedisClusterAutoConfiguration.class},
    beforeName = {"dev.weir.spring.autoconfigure.actuate.WeirEndpointAutoConfiguration",
        "dev.weir.spring.autoconfigure.actuate.WeirHealthContributorAutoConfiguration"})
@ConditionalOnClass({LettuceConnectionFactory.class, io.lettuce.core.RedisClient.class,
    tools.jackson.databind.json.JsonMapper.class})
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("weir.rules-store.enabled")
@ConditionalOnBean(Weir.class)
@EnableConfigurationProperties(WeirProperties.class)
public final class WeirRulesStoreAutoConfiguration {

  /** The gauge of the version this instance applies (-1 before the first). */
  public static final String VERSION = "weir.rules.version";

  /** The gauge of the store's connection: 1 while Redis answers, else 0. */
  public static final String CONNECTED = "weir.rules.store.connected";

  @Bean
  @ConditionalOnMissingBean
  RulesStore weirRulesStore(ObjectProvider<RedisConnectionFactory> connectionFactory, WeirProperties properties) {
    RedisConnectionFactory factory = connectionFactory.getIfUnique();
    if (!(factory instanceof LettuceConnectionFactory lettuce)) {
      throw new InvalidWeirConfigurationException(List.of(new RuleViolation("weir.rules-store.enabled",
          "the rules store needs one Lettuce RedisConnectionFactory (spring-boot-starter-data-redis), found "
              + (factory == null ? "none" : factory.getClass().getName()))));
    }
    String prefix = properties.getCluster().getKeyPrefix();
    if (!WeirPropertiesValidator.isValidKeyPrefix(prefix)) {
      prefix = "weir"; // WeirPropertiesValidator reports it with every other problem
    }
    int history = Math.max(WeirProperties.RulesStore.MIN_HISTORY,
        Math.min(WeirProperties.RulesStore.MAX_HISTORY, properties.getRulesStore().getHistory()));
    return new RulesStore(lettuce, prefix, history);
  }

  @Bean
  @ConditionalOnMissingBean
  FleetSync weirFleetSync(RulesStore store, Weir weir, ObjectProvider<RuleSources> sources,
      WeirProperties properties, ObjectProvider<RedisConnectionFactory> connectionFactory) {
    RuleSources attached = attached(sources);
    return new FleetSync(store, FleetRules.applier(weir.rules(), attached, properties.isShadow()), attached,
        connectionFactory.getIfUnique());
  }

  /** The engine's rule sources when they loaded its rules; an application's own engine may have none. */
  private static @Nullable RuleSources attached(ObjectProvider<RuleSources> sources) {
    RuleSources found = sources.getIfUnique();
    return found != null && found.isAttached() ? found : null;
  }

  @Bean
  @ConditionalOnMissingBean
  FleetRules weirFleetRules(RulesStore store, FleetSync sync, Weir weir, ObjectProvider<RuleSources> sources,
      WeirProperties properties, ObjectProvider<RuleChangeLog> changes, ObjectProvider<FleetTraffic> traffic) {
    return new FleetRules(store, sync, weir.rules(), attached(sources), properties.isShadow(),
        changes.getIfAvailable(() -> new RuleChangeLog(null)), traffic::getIfUnique);
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static final class Metrics {

    @Bean
    MeterBinder weirRulesStoreMeters(FleetSync sync, WeirProperties properties) {
      List<Tag> tags = new ArrayList<>();
      properties.getMetrics().getTags().forEach((key, value) -> tags.add(Tag.of(key, value)));
      return registry -> {
        Gauge.builder(VERSION, sync, FleetSync::appliedVersion).tags(tags)
            .description("The version of the rules store this instance applies; -1 before the first")
            .register(registry);
        Gauge.builder(CONNECTED, sync, s -> s.reachable() ? 1 : 0).tags(tags)
            .description("1 while the rules store's Redis answers, else 0").register(registry);
      };
    }
  }
}
