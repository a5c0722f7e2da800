package dev.weir.spring.autoconfigure.retry;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.retry.RetryBudget;
import dev.weir.spring.retry.RetryBudgetPostProcessor;
import dev.weir.spring.retry.RetryBudgets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.retry.RetryTemplate;

/**
 * Auto-configuration of retry budgets ({@code weir.retry-budget.*}): a {@link RetryBudgets} bean on
 * the engine's ticker, and the {@link RetryBudgetPostProcessor} that puts every {@link RetryTemplate}
 * bean and every {@code @Retryable} method (with {@code @EnableResilientMethods}) under it. With
 * {@code weir.retry-budget.enabled=false} nothing is counted, but a Weir refusal is still never
 * retried. Invalid settings stop the start naming the property.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class)
@ConditionalOnClass(RetryTemplate.class)
@ConditionalOnBean(Weir.class)
public final class WeirRetryBudgetAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RetryBudgets weirRetryBudgets(Weir weir, WeirProperties properties) {
    WeirProperties.RetryBudget settings = properties.getRetryBudget();
    List<RuleViolation> violations = violations(settings);
    if (!violations.isEmpty()) {
      throw new InvalidWeirConfigurationException(violations);
    }
    return settings.isEnabled()
        ? RetryBudgets.of(weir.ticker(), settings.getRatio(), settings.getWindow(), settings.getMinPerSecond())
        : RetryBudgets.none();
  }

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static RetryBudgetPostProcessor weirRetryBudgetPostProcessor(ObjectProvider<RetryBudgets> budgets) {
    return new RetryBudgetPostProcessor(budgets::getObject);
  }

  /** Returns what is wrong with the settings, each named by its property. */
  static List<RuleViolation> violations(WeirProperties.RetryBudget settings) {
    List<RuleViolation> violations = new ArrayList<>();
    double ratio = settings.getRatio();
    if (!(ratio >= 0) || Double.isInfinite(ratio)) {
      violations.add(new RuleViolation("weir.retry-budget.ratio", "must be a number of at least 0, was " + ratio));
    }
    double minPerSecond = settings.getMinPerSecond();
    if (!(minPerSecond >= 0) || Double.isInfinite(minPerSecond)) {
      violations.add(new RuleViolation("weir.retry-budget.min-per-second",
          "must be a number of at least 0, was " + minPerSecond));
    }
    Duration window = settings.getWindow();
    if (window == null || window.compareTo(RetryBudget.MIN_WINDOW) < 0 || window.compareTo(RetryBudget.MAX_WINDOW) > 0) {
      violations.add(new RuleViolation("weir.retry-budget.window", "must be a duration from 10ms to 1d, was " + window));
    }
    return violations;
  }
}
