package dev.weir.spring.autoconfigure;

import dev.weir.Weir;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.keys.KeyLanguage;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.Spelling;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * What Weir checks once the application's beans exist: every {@code @RateLimited} declaration
 * (also of lazy beans not created yet) and every {@code ref-resource} of a {@code related} rule;
 * either stops the start when wrong. When the application is ready, it warns about each rule whose
 * resource no {@code @RateLimited} method and no call so far uses: most often a typo.
 */
final class WeirStartupCheck implements SmartInitializingSingleton, ApplicationListener<ApplicationReadyEvent> {

  private static final Log logger = LogFactory.getLog(WeirStartupCheck.class);

  private final ConfigurableListableBeanFactory beanFactory;
  private final WeirProperties properties;
  private final ObjectProvider<Weir> weir;
  private final ObjectProvider<RateLimitedAdvisor> advisor;
  private final ObjectProvider<KeyLanguage> keyExpressions;
  private final ResourcesInUse resourcesInUse;
  private boolean rulesLoaded;

  WeirStartupCheck(ConfigurableListableBeanFactory beanFactory, WeirProperties properties, ObjectProvider<Weir> weir,
      ObjectProvider<RateLimitedAdvisor> advisor, ObjectProvider<KeyLanguage> keyExpressions,
      ResourcesInUse resourcesInUse) {
    this.beanFactory = beanFactory;
    this.properties = properties;
    this.weir = weir;
    this.advisor = advisor;
    this.keyExpressions = keyExpressions;
    this.resourcesInUse = resourcesInUse;
  }

  @Override
  public void afterSingletonsInstantiated() {
    RateLimitedAdvisor rateLimited = advisor.getIfUnique();
    if (rateLimited != null) {
      inspectBeans(rateLimited);
    }
    KeyLanguage keys = keyExpressions.getIfUnique();
    if (keys != null) {
      keys.seal(); // every @RateLimited method is known now
      checkKeys(keys);
    }
    Weir engine = weir.getIfUnique();
    RuleSet configured = RuleLists.of(properties).toRuleSet();
    if (engine == null || configured.isEmpty()) {
      return;
    }
    String first = configured.resources().iterator().next();
    rulesLoaded = engine.rules().rules(first).equals(configured.forResource(first));
    if (!rulesLoaded) {
      logger.warn("weir.* has rules for " + configured.resources() + ", but the Weir bean is the application's own,"
          + " so they were not loaded into it. Load them yourself, or use a WeirBuilderCustomizer bean instead of a"
          + " Weir bean.");
      return;
    }
    checkReferences(engine);
  }

  private void inspectBeans(RateLimitedAdvisor rateLimited) {
    for (String name : beanFactory.getBeanDefinitionNames()) {
      BeanDefinition definition = beanFactory.getBeanDefinition(name);
      if (definition.isAbstract() || definition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
        continue;
      }
      Class<?> type;
      try {
        type = beanFactory.getType(name, false);
      } catch (RuntimeException e) {
        continue; // a type that cannot be predicted is checked when its bean is created
      }
      if (type != null) {
        rateLimited.inspect(type); // throws RateLimitedDeclarationException
      }
    }
  }

  /**
   * The key expressions of weir.param-flow, now that the argument names of every resource are
   * known: a name no call of the resource has stops the start (until now such an expression may
   * have waited for its resource's methods).
   */
  private void checkKeys(KeyLanguage keys) {
    List<ParamFlowRule> rules = RuleLists.of(properties).toRuleSet().paramFlow();
    List<RuleViolation> violations = new ArrayList<>();
    for (int i = 0; i < rules.size(); i++) {
      ParamFlowRule rule = rules.get(i);
      if (rule.key() != null) {
        try {
          keys.compile(rule.resource(), rule.key());
        } catch (Throwable invalid) { // whatever checking throws is a violation, but a VM in trouble
          if (invalid instanceof VirtualMachineError error && !(invalid instanceof StackOverflowError)) {
            throw error;
          }
          violations.add(new RuleViolation("weir.param-flow[" + i + "].key", invalid instanceof IllegalArgumentException
              ? String.valueOf(invalid.getMessage()) : "could not be checked: " + invalid));
        }
      }
    }
    if (!violations.isEmpty()) {
      throw new InvalidWeirConfigurationException(violations);
    }
  }

  private void checkReferences(Weir engine) {
    Set<String> known = new TreeSet<>(engine.resources());
    known.addAll(resourcesInUse.declared());
    List<RuleViolation> violations = WeirPropertiesValidator.unknownReferences(properties, known);
    if (!violations.isEmpty()) {
      throw new InvalidWeirConfigurationException(violations);
    }
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!rulesLoaded || event.getApplicationContext().getBeanFactory() != beanFactory) {
      return;
    }
    Weir engine = weir.getIfUnique();
    if (engine == null) {
      return;
    }
    Set<String> used = resourcesInUse.used();
    Set<String> warned = new HashSet<>();
    RuleSet configured = RuleLists.of(properties).toRuleSet();
    warnUnused("weir.flow", configured.flow(), used, warned);
    warnUnused("weir.degrade", configured.degrade(), used, warned);
    warnUnused("weir.param-flow", configured.paramFlow(), used, warned);
    warnUnused("weir.authority", configured.authority(), used, warned);
  }

  private void warnUnused(String property, List<? extends ResourceRule> rules, Set<String> used, Set<String> warned) {
    for (int i = 0; i < rules.size(); i++) {
      String resource = rules.get(i).resource();
      if (!used.contains(resource) && warned.add(resource)) {
        logger.warn(property + "[" + i + "].resource '" + resource + "' is used by no @RateLimited method and no"
            + " call so far" + Spelling.suggestion(resource, used) + ". Check its spelling; resources in use: " + used);
      }
    }
  }
}
