package dev.weir.spring.autoconfigure.fleet;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.redis.WeirRedisClusterAutoConfiguration;
import dev.weir.spring.fleet.FleetTraffic;
import dev.weir.spring.fleet.FleetTrafficPublisher;
import dev.weir.spring.fleet.FleetTrafficRedis;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import java.net.InetAddress;
import java.util.List;
import java.util.UUID;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of the fleet's traffic: with {@code weir.rules-store.enabled=true} (which
 * needs {@code weir.cluster.enabled=true}), this instance publishes its per-resource traffic to
 * {@code weir.cluster}'s Redis once a second ({@link FleetTrafficPublisher}), and the
 * {@link FleetTraffic} bean sums the live instances' readings for {@code GET /actuator/weir/fleet}.
 */
@AutoConfiguration(after = {WeirAutoConfiguration.class, WeirRedisClusterAutoConfiguration.class},
    beforeName = {"dev.weir.spring.autoconfigure.actuate.WeirEndpointAutoConfiguration",
        "dev.weir.spring.autoconfigure.fleet.WeirRulesStoreAutoConfiguration"})
@ConditionalOnClass({LettuceConnectionFactory.class, io.lettuce.core.RedisClient.class})
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("weir.rules-store.enabled")
@ConditionalOnBean(Weir.class)
@EnableConfigurationProperties(WeirProperties.class)
public final class WeirFleetTrafficAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(FleetTraffic.class)
  FleetTrafficRedis weirFleetTraffic(ObjectProvider<RedisConnectionFactory> connectionFactory,
      WeirProperties properties) {
    RedisConnectionFactory factory = connectionFactory.getIfUnique();
    if (!(factory instanceof LettuceConnectionFactory lettuce)) {
      throw new InvalidWeirConfigurationException(List.of(new RuleViolation("weir.rules-store.enabled",
          "the fleet's traffic needs one Lettuce RedisConnectionFactory (spring-boot-starter-data-redis), found "
              + (factory == null ? "none" : factory.getClass().getName()))));
    }
    String prefix = properties.getCluster().getKeyPrefix();
    if (!WeirPropertiesValidator.isValidKeyPrefix(prefix)) {
      prefix = "weir"; // WeirPropertiesValidator reports it with every other problem
    }
    return new FleetTrafficRedis(lettuce, prefix);
  }

  @Bean
  @ConditionalOnBean(FleetTrafficRedis.class)
  @ConditionalOnMissingBean
  FleetTrafficPublisher weirFleetTrafficPublisher(Weir weir, FleetTrafficRedis redis) {
    return new FleetTrafficPublisher(weir, redis, hostName() + "-" + UUID.randomUUID().toString().substring(0, 8));
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException | SecurityException e) {
      return "unknown";
    }
  }
}
