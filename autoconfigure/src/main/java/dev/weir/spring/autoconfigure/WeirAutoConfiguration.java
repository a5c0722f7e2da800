package dev.weir.spring.autoconfigure;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.cluster.ClusterClient;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.aop.StaticRateLimitedMethods;
import dev.weir.spring.aop.WeirTaskDecorator;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.keys.KeyLanguage;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.rules.RuleSources;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of Weir: one {@link Weir} engine built from the {@code weir.*} properties
 * (with the application's {@link Ticker} and {@link Sleeper} beans, if any, and its
 * {@link WeirBuilderCustomizer}s), the advisor that applies {@code @RateLimited} to beans, and the
 * startup checks. The whole of it is off with {@code weir.enabled=false}.
 *
 * <p>The {@code weir.*} configuration is judged by {@link WeirPropertiesValidator} against the
 * engine before any rule is loaded: any invalid value, and any key that is no Weir property
 * ({@link StrictKeys}, unless {@code weir.strict-keys} is false), stops the start with an
 * {@link InvalidWeirConfigurationException} naming every offending property. The rules are then
 * loaded by {@link RuleSources}, which also reads the rule file and Sentinel files of
 * {@code weir.rules.*} (an invalid or missing one stops the start the same way, each problem named
 * with its file and line) and watches them while the context runs.
 *
 * <p>The {@link RuleChangeLog} bean records the rule changes of every runtime source (logged, and
 * audited when the actuator is present). The {@link WeirTaskDecorator} bean carries a caller's
 * criticality into the tasks of the executors Spring Boot configures ({@code @Async} methods).
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WeirProperties.class)
@Import(RateLimitedProxyRegistrar.class)
public final class WeirAutoConfiguration {

  // Declared before the engine, and only for the auto-configured one: an application's own Weir
  // bean gets neither weir.* rules nor rule files.
  @Bean
  @ConditionalOnMissingBean({Weir.class, RuleSources.class})
  RuleSources weirRuleSources(WeirProperties properties, RuleChangeLog changeLog) {
    return new RuleSources(properties, changeLog);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  Weir weir(WeirProperties properties, ObjectProvider<Ticker> ticker, ObjectProvider<Sleeper> sleeper,
      ObjectProvider<WeirBuilderCustomizer> customizers, ObjectProvider<ClusterClient> clusterClient,
      RuleSources ruleSources, KeyLanguage keyExpressions, StrictKeys strictKeys) {
    ClusterClient client = properties.getCluster().isEnabled() ? clusterClient.getIfAvailable() : null;
    Weir weir = WeirEngines.build(properties, client, keyExpressions, ticker, sleeper, customizers);
    List<RuleViolation> violations = new ArrayList<>(strictKeys.violations());
    violations.addAll(WeirPropertiesValidator.validate(properties, weir.rules(), client != null));
    if (violations.isEmpty()) {
      try {
        ruleSources.attach(weir);
      } catch (InvalidRulesException invalidFiles) {
        violations = invalidFiles.violations();
      }
    }
    if (!violations.isEmpty()) {
      weir.close();
      throw new InvalidWeirConfigurationException(violations);
    }
    return weir;
  }

  @Bean
  StrictKeys weirStrictKeys(Environment environment, WeirProperties properties) {
    return new StrictKeys(environment, properties);
  }

  @Bean
  @ConditionalOnMissingBean
  KeyLanguage weirKeyExpressions(WeirProperties properties, ObjectProvider<RateLimitedAdvisor> advisor) {
    return new KeyLanguage(new ArgumentNames(properties, advisor));
  }

  @Bean
  @ConditionalOnMissingBean
  RuleChangeLog weirRuleChangeLog(ApplicationEventPublisher publisher) {
    return new RuleChangeLog(publisher);
  }

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean
  static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<Weir> weir, ObjectProvider<RefusalObserver> observer,
      Environment environment) {
    return new RateLimitedAdvisor(SingletonSupplier.of(weir::getObject),
        SingletonSupplier.of(() -> observer.getIfAvailable(RefusalObserver::none)))
        .classProxies(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
  }

  /** A {@code @RateLimited} static method of the application's classes stops the start. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static StaticRateLimitedMethods weirStaticRateLimitedMethods(BeanFactory beanFactory, ResourceLoader resourceLoader) {
    return new StaticRateLimitedMethods(beanFactory, resourceLoader);
  }

  @Bean
  @ConditionalOnMissingBean
  WeirTaskDecorator weirTaskDecorator(Weir weir) {
    return new WeirTaskDecorator(weir);
  }

  @Bean
  WeirStartupCheck weirStartupCheck(ConfigurableListableBeanFactory beanFactory, WeirProperties properties,
      ObjectProvider<Weir> weir,
      ObjectProvider<RateLimitedAdvisor> advisor, ObjectProvider<KeyLanguage> keyExpressions,
      ResourcesInUse resourcesInUse) {
    return new WeirStartupCheck(beanFactory, properties, weir, advisor, keyExpressions, resourcesInUse);
  }

  @Bean
  @ConditionalOnMissingBean
  ResourcesInUse weirResourcesInUse(WeirProperties properties, ObjectProvider<Weir> weir,
      ObjectProvider<RateLimitedAdvisor> advisor, ObjectProvider<ResourcesInUse.DeclaredResources> declared) {
    return new ResourcesInUse(properties, weir, advisor, declared);
  }
}
