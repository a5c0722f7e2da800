package dev.weir.spring.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import dev.weir.spring.actuate.WeirHealthIndicator;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link WeirHealthContributorAutoConfiguration}: when it applies, what it reports, and when it backs off. */
class WeirHealthContributorAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class,
          WeirHealthContributorAutoConfiguration.class, HealthContributorAutoConfiguration.class));

  @Test
  void contributesWeirHealthUpWithoutOpenCircuits() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(WeirHealthIndicator.class).hasBean("weirHealthIndicator");
      Health health = context.getBean(WeirHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).isEqualTo(Map.of("circuits", Map.of(), "cluster", "disabled",
          "ruleSources", Map.of("application.yml", "ok", "endpoint", "ok")));
    });
  }

  @Test
  void anOpenCircuitIsADetailAndStillUp() {
    runner.run(context -> {
      Weir weir = context.getBean(Weir.class);
      weir.rules().replace("unit.breaker", RuleSet.of(new DegradeRule("unit.breaker", DegradeStrategy.ERROR_COUNT,
          0, null, 1, Duration.ofSeconds(1), Duration.ofSeconds(10))));
      try (var entry = weir.entry("unit.breaker")) {
        entry.recordError(new IllegalStateException("boom"));
      }
      Health health = context.getBean(WeirHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("circuits", Map.of("unit.breaker", "open"));
    });
  }

  @Test
  void offWithManagementHealthWeirEnabledFalse() {
    runner.withPropertyValues("management.health.weir.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirHealthIndicator.class));
  }

  @Test
  void offWithoutSpringBootHealth() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class,
            WeirHealthContributorAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(WeirHealthIndicator.class));
  }

  @Test
  void offWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirHealthIndicator.class));
  }

  @Test
  void backsOffForTheApplicationsIndicatorOfTheSameName() {
    WeirHealthIndicator own = new WeirHealthIndicator(Weir.builder().build());
    runner.withBean("weirHealthIndicator", WeirHealthIndicator.class, () -> own).run(context -> {
      assertThat(context).hasSingleBean(WeirHealthIndicator.class);
      assertThat(context.getBean(WeirHealthIndicator.class)).isSameAs(own);
    });
  }
}
