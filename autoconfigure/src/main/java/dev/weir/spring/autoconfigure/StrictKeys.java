package dev.weir.spring.autoconfigure;

import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.LogText;
import dev.weir.spring.properties.PropertyKeys;
import dev.weir.spring.properties.WeirProperties;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * The keys under {@code weir.} that are no Weir property ({@link PropertyKeys}), in every property
 * source of the environment: with {@code weir.strict-keys} (the default) they stop the start,
 * named with the nearest known key; without it, each is logged as a warning, once.
 *
 * <p>The engine's bean takes them first, so that they are reported with the other problems of
 * the configuration (a misspelt {@code cuont} before the {@code count} it leaves missing). When
 * the application has a {@code Weir} bean of its own, they are judged once every bean exists.
 */
final class StrictKeys implements SmartInitializingSingleton {

  private static final Log logger = LogFactory.getLog(StrictKeys.class);

  private final Environment environment;
  private final WeirProperties properties;
  private @Nullable List<RuleViolation> violations;

  StrictKeys(Environment environment, WeirProperties properties) {
    this.environment = environment;
    this.properties = properties;
  }

  /**
   * Returns the unknown keys that stop the start: all of them with {@code weir.strict-keys}, else
   * none (each is logged as a warning, the first time this is called).
   */
  synchronized List<RuleViolation> violations() {
    if (violations == null) {
      List<RuleViolation> unknown = environment instanceof ConfigurableEnvironment configurable
          ? PropertyKeys.unknown(ConfigurationPropertySources.get(configurable), "weir", WeirProperties.class)
          : List.of();
      if (!properties.isStrictKeys()) {
        unknown.forEach(violation -> logger.warn(LogText.of(violation + where(violation.field()))
            + "; it is ignored (weir.strict-keys is false)"));
        unknown = List.of();
      }
      violations = unknown;
    }
    return violations;
  }

  @Override
  public void afterSingletonsInstantiated() {
    List<RuleViolation> unknown = violations();
    if (!unknown.isEmpty()) {
      throw new InvalidWeirConfigurationException(unknown);
    }
  }

  /** Where a key was set, as its property source tells: {@code " (from class path resource [application.yml] - 3:5)"}. */
  private String where(String field) {
    ConfigurationPropertyName name = ConfigurationPropertyName.ofIfValid(field);
    if (name == null || !(environment instanceof ConfigurableEnvironment configurable)) {
      return "";
    }
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(configurable)) {
      ConfigurationProperty property = source.getConfigurationProperty(name);
      if (property != null && property.getOrigin() != null) {
        return " (from " + property.getOrigin() + ")";
      }
    }
    return "";
  }
}
