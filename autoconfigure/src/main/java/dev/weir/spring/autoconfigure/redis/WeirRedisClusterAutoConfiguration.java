package dev.weir.spring.autoconfigure.redis;

import dev.weir.cluster.ClusterClient;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.redis.RedisClusterClient;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of cluster mode on Redis: with {@code weir.cluster.enabled=true} and Spring
 * Data Redis on Lettuce, a {@link RedisClusterClient} on the application's connection factory, which
 * the engine then counts cluster-mode flow rules with. An application that defines its own
 * {@link ClusterClient} bean keeps it. A connection factory that is not Lettuce's stops the start
 * with a message, as does {@code weir.cluster.enabled=true} without Spring Data Redis (reported by
 * {@link WeirPropertiesValidator}).
 */
@AutoConfiguration(before = WeirAutoConfiguration.class,
    afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({LettuceConnectionFactory.class, io.lettuce.core.RedisClient.class})
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("weir.cluster.enabled")
@EnableConfigurationProperties(WeirProperties.class)
public final class WeirRedisClusterAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(ClusterClient.class)
  RedisClusterClient weirRedisClusterClient(ObjectProvider<RedisConnectionFactory> connectionFactory,
      WeirProperties properties) {
    RedisConnectionFactory factory = connectionFactory.getIfUnique();
    if (!(factory instanceof LettuceConnectionFactory lettuce)) {
      throw new InvalidWeirConfigurationException(List.of(new RuleViolation("weir.cluster.enabled",
          "cluster mode needs one Lettuce RedisConnectionFactory (spring-boot-starter-data-redis, "
              + "spring.data.redis.client-type=lettuce), found "
              + (factory == null ? "none" : factory.getClass().getName()))));
    }
    String prefix = properties.getCluster().getKeyPrefix();
    if (!WeirPropertiesValidator.isValidKeyPrefix(prefix)) {
      // WeirPropertiesValidator reports it with every other problem; a valid stand-in keeps this bean.
      prefix = "weir";
    }
    return new RedisClusterClient(lettuce, prefix,
        properties.getCluster().getFallback() == dev.weir.cluster.ClusterFallback.SHARE,
        properties.getCluster().isLease());
  }
}
