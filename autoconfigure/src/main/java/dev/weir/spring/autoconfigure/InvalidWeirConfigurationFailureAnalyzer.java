package dev.weir.spring.autoconfigure;

import dev.weir.rule.RuleViolation;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Reports an {@link InvalidWeirConfigurationException}: each invalid property with its value,
 * where it was set, and what is allowed.
 */
final class InvalidWeirConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidWeirConfigurationException> {

  private final @Nullable Environment environment;

  InvalidWeirConfigurationFailureAnalyzer(@Nullable Environment environment) {
    this.environment = environment;
  }

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidWeirConfigurationException cause) {
    StringBuilder description = new StringBuilder("The Weir configuration is invalid:\n");
    for (RuleViolation violation : cause.violations()) {
      description.append("\n\t").append(violation.field()).append(": ").append(violation.message());
      ConfigurationProperty property = find(violation.field());
      if (property != null) {
        description.append("\n\t\t(value '").append(property.getValue()).append('\'');
        Origin origin = property.getOrigin();
        if (origin != null) {
          description.append(" from ").append(origin);
        }
        description.append(')');
      }
    }
    return new FailureAnalysis(description.toString(),
        "Correct the properties above in your application's configuration (or the rule files they name, at the line given); each message says what is allowed.",
        cause);
  }

  private @Nullable ConfigurationProperty find(String field) {
    ConfigurationPropertyName name = ConfigurationPropertyName.ofIfValid(field);
    if (environment == null || name == null) {
      return null;
    }
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      ConfigurationProperty property = source.getConfigurationProperty(name);
      if (property != null) {
        return property;
      }
    }
    return null;
  }
}
