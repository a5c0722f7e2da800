package dev.weir.spring.autoconfigure;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.cluster.ClusterClient;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.rule.SystemRule;
import dev.weir.spring.aop.RateLimitedAdvisor;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of Weir: one {@link Weir} engine built from the {@code weir.*} properties
 * (with the application's {@link Ticker} and {@link Sleeper} beans, if any, and its
 * {@link WeirBuilderCustomizer}s), the advisor that applies {@code @RateLimited} to beans, and the
 * startup checks. The whole of it is off with {@code weir.enabled=false}.
 *
 * <p>The {@code weir.*} configuration is checked before the engine is built: any invalid value
 * stops the start with an {@link InvalidWeirConfigurationException} naming every offending
 * property.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WeirProperties.class)
@Import(RateLimitedProxyRegistrar.class)
public final class WeirAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  Weir weir(WeirProperties properties, ObjectProvider<Ticker> ticker, ObjectProvider<Sleeper> sleeper,
      ObjectProvider<WeirBuilderCustomizer> customizers, ObjectProvider<ClusterClient> clusterClient) {
    List<RuleViolation> violations = new ArrayList<>(PropertiesCheck.settings(properties));
    boolean settingsValid = violations.isEmpty();
    List<RuleViolation> others = PropertiesCheck.others(properties);
    violations.addAll(others);
    Weir.Builder builder = Weir.builder();
    if (settingsValid) {
      builder.maxResources(properties.getMaxResources())
          .sampleCount(properties.getStatistics().getSampleCount());
    }
    if (properties.getCluster().isEnabled()) {
      ClusterClient client = clusterClient.getIfAvailable();
      if (client == null) {
        violations.add(new RuleViolation("weir.cluster.enabled", "cluster mode counts in Redis and needs "
            + "spring-boot-starter-data-redis (Lettuce) on the classpath, or a ClusterClient bean"));
      } else if (others.stream().noneMatch(violation -> violation.field().startsWith("weir.cluster."))) {
        builder.cluster(client, properties.getCluster().toOptions());
      }
    }
    ticker.ifAvailable(builder::ticker);
    sleeper.ifAvailable(builder::sleeper);
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    Weir weir = builder.build();
    RuleSet rules = RuleProperties.toRuleSet(properties);
    violations.addAll(PropertiesCheck.underWeir(weir.rules().validate(rules)));
    if (!violations.isEmpty()) {
      weir.close();
      throw new InvalidWeirConfigurationException(violations);
    }
    // Resource by resource, so that rules a customizer gave other resources stay.
    for (String resource : rules.resources()) {
      weir.rules().replace(resource, rules.forResource(resource));
    }
    SystemRule system = properties.getSystem().toRule();
    if (system.isActive()) {
      weir.rules().replaceSystemRule(system);
    }
    return weir;
  }

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean
  static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<Weir> weir) {
    return new RateLimitedAdvisor(SingletonSupplier.of(weir::getObject));
  }

  @Bean
  WeirStartupCheck weirStartupCheck(ConfigurableListableBeanFactory beanFactory, WeirProperties properties,
      ObjectProvider<Weir> weir,
      ObjectProvider<RateLimitedAdvisor> advisor) {
    return new WeirStartupCheck(beanFactory, properties, weir, advisor);
  }
}
