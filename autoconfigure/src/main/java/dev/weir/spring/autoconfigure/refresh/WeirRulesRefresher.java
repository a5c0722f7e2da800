package dev.weir.spring.autoconfigure.refresh;

import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.PropertyKeys;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.rules.RuleSources;
import java.util.List;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Re-applies the {@code weir.*} rules when a refresh changed a {@code weir.*} key. The rules are
 * bound into a fresh {@link WeirProperties} from the environment (not read from the properties
 * bean, which Spring Cloud's rebinder refreshes on its own schedule), then handed to
 * {@link RuleSources#refreshApplication}, which validates them and changes nothing when they are
 * invalid. A value that cannot be bound at all is such a problem, named by its property, and so is a
 * key that is no Weir property, unless {@code weir.strict-keys} is false (as at start).
 */
final class WeirRulesRefresher implements ApplicationListener<EnvironmentChangeEvent> {

  private final Environment environment;
  private final RuleSources sources;

  WeirRulesRefresher(Environment environment, RuleSources sources) {
    this.environment = environment;
    this.sources = sources;
  }

  @Override
  public void onApplicationEvent(EnvironmentChangeEvent event) {
    if (event.getKeys().stream().noneMatch(key -> key.startsWith("weir."))) {
      return;
    }
    WeirProperties fresh;
    try {
      fresh = Binder.get(environment).bindOrCreate("weir", Bindable.of(WeirProperties.class));
    } catch (BindException ex) {
      String property = ex.getProperty() != null ? ex.getProperty().getName().toString() : ex.getName().toString();
      Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
      sources.refreshApplication(new WeirProperties(), List.of(new RuleViolation(property,
          "cannot be bound: " + cause.getMessage())));
      return;
    }
    List<RuleViolation> unknownKeys = fresh.isStrictKeys()
        ? PropertyKeys.unknown(ConfigurationPropertySources.get(environment), "weir", WeirProperties.class)
        : List.of();
    sources.refreshApplication(fresh, unknownKeys);
  }
}
