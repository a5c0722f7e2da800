package dev.weir.spring.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.cluster.ClusterClient;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.redis.RedisClusterClient;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link WeirRedisClusterAutoConfiguration}: a Redis cluster client on the application's Lettuce
 * connection only with {@code weir.cluster.enabled=true}, backing off for the application's own
 * {@link ClusterClient}, and a start that stops, naming the property, when cluster mode cannot work.
 * No Redis needs to run: the client connects in the background, and these contexts decide nothing.
 */
class WeirRedisClusterAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
          WeirRedisClusterAutoConfiguration.class, WeirAutoConfiguration.class))
      .withPropertyValues("spring.data.redis.port=1");

  @Test
  void offUnlessClusterModeIsEnabled() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(ClusterClient.class);
      assertThat(context.getBean(Weir.class).cluster()).isNull();
    });
  }

  @Test
  void clusterClientOnTheApplicationsLettuceConnection() {
    runner.withPropertyValues("weir.cluster.enabled=true", "weir.cluster.key-prefix=shop").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(RedisClusterClient.class);
      assertThat(context.getBean(Weir.class).cluster()).as("the engine counts cluster-mode rules there").isNotNull();
    });
  }

  @Test
  void offWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false", "weir.cluster.enabled=true")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ClusterClient.class)
            .doesNotHaveBean(Weir.class));
  }

  @Test
  void backsOffForTheApplicationsClusterClient() {
    runner.withPropertyValues("weir.cluster.enabled=true").withUserConfiguration(OwnClusterClient.class)
        .run(context -> {
          assertThat(context).hasSingleBean(ClusterClient.class);
          assertThat(context.getBean(ClusterClient.class)).isSameAs(context.getBean("ownClusterClient"));
        });
  }

  @Test
  void withoutSpringDataRedisTheStartStopsNamingTheProperty() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
        .withPropertyValues("weir.cluster.enabled=true")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("weir.cluster.enabled")
            .hasMessageContaining("needs spring-boot-starter-data-redis"));
  }

  @Test
  void aConnectionFactoryThatIsNotLettucesStopsTheStart() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirRedisClusterAutoConfiguration.class, WeirAutoConfiguration.class))
        .withBean(RedisConnectionFactory.class, () -> Mockito.mock(RedisConnectionFactory.class))
        .withPropertyValues("weir.cluster.enabled=true")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("weir.cluster.enabled")
            .hasMessageContaining("needs one Lettuce RedisConnectionFactory"));
  }

  @Test
  void anInvalidKeyPrefixIsReportedWithItsPropertyPath() {
    runner.withPropertyValues("weir.cluster.enabled=true", "weir.cluster.key-prefix={app}")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("weir.cluster.key-prefix: must be non-blank and without braces"));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnClusterClient {

    @Bean(destroyMethod = "close")
    RedisClusterClient ownClusterClient(LettuceConnectionFactory connectionFactory) {
      return new RedisClusterClient(connectionFactory, "own");
    }
  }
}
