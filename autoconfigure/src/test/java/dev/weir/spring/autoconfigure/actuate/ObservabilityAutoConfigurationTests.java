package dev.weir.spring.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Weir;
import dev.weir.spring.actuate.WeirEndpoint;
import dev.weir.spring.actuate.WeirEndpointRequestBodyAdvice;
import dev.weir.spring.actuate.WeirEndpointWebExtension;
import dev.weir.spring.actuate.WeirHealthIndicator;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.metrics.WeirMetricsAutoConfiguration;
import dev.weir.spring.metrics.WeirMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** The meters, endpoint and health auto-configurations, in contexts built for each case. */
class ObservabilityAutoConfigurationTests {

  private static final AutoConfigurations WEIR = AutoConfigurations.of(WeirAutoConfiguration.class,
      WeirMetricsAutoConfiguration.class, WeirEndpointAutoConfiguration.class,
      WeirHealthContributorAutoConfiguration.class);

  private static final AutoConfigurations METRICS = AutoConfigurations.of(MetricsAutoConfiguration.class,
      SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class);

  private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(EndpointAutoConfiguration.class,
      WebEndpointAutoConfiguration.class);

  private static final AutoConfigurations HEALTH = AutoConfigurations.of(HealthContributorAutoConfiguration.class);

  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(WEIR).withConfiguration(METRICS).withConfiguration(ACTUATOR).withConfiguration(HEALTH)
      .withPropertyValues("management.endpoints.web.exposure.include=weir");

  @Test
  void metersEndpointAndHealthWithActuatorAndMicrometer() {
    runner.run(context -> assertThat(context).hasSingleBean(WeirMeterBinder.class)
        .hasSingleBean(WeirEndpoint.class).hasSingleBean(WeirEndpointWebExtension.class)
        .hasSingleBean(WeirEndpointRequestBodyAdvice.class).hasSingleBean(WeirHealthIndicator.class)
        .hasBean("weirHealthIndicator"));
  }

  @Test
  void metersGoToTheApplicationsRegistryWithTheConfiguredTags() {
    runner.withPropertyValues("weir.metrics.tags.region=eu", "weir.metrics.tags.team=shop").run(context -> {
      Weir weir = context.getBean(Weir.class);
      weir.entry("unit.tagged").close();
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.get("weir.calls").tags("resource", "unit.tagged", "result", "succeeded",
          "region", "eu", "team", "shop").functionCounter().count()).isEqualTo(1.0);
      assertThat(registry.get("weir.calls").tag("resource", "unit.tagged").meters()).hasSize(3);
      assertThat(registry.get("weir.blocks").tag("resource", "unit.tagged").meters()).hasSize(5);
      assertThat(registry.get("weir.circuit.state").tag("resource", "unit.tagged").meters()).hasSize(3);
      assertThat(registry.get("weir.calls.active").tag("resource", "unit.tagged").gauge().value()).isZero();
      assertThat(registry.get("weir.call.duration").tag("resource", "unit.tagged").functionTimer().count())
          .isEqualTo(1.0);
      assertThat(Metrics.globalRegistry.find("weir.calls").tag("resource", "unit.tagged").meters()).isEmpty();
    });
  }

  @Test
  void endpointOnlyWhenExposed() {
    new WebApplicationContextRunner().withConfiguration(WEIR).withConfiguration(METRICS)
        .withConfiguration(ACTUATOR).withConfiguration(HEALTH).run(context -> assertThat(context)
        .doesNotHaveBean(WeirEndpoint.class).doesNotHaveBean(WeirEndpointWebExtension.class)
        .doesNotHaveBean(WeirEndpointRequestBodyAdvice.class)
        .hasSingleBean(WeirHealthIndicator.class).hasSingleBean(WeirMeterBinder.class));
  }

  @Test
  void endpointNotWhenItsAccessIsNone() {
    runner.withPropertyValues("management.endpoint.weir.access=NONE")
        .run(context -> assertThat(context).doesNotHaveBean(WeirEndpoint.class));
  }

  @Test
  void endpointWithoutItsWebPartsOutsideWebApplications() {
    new ApplicationContextRunner().withConfiguration(WEIR).withConfiguration(METRICS)
        .withConfiguration(ACTUATOR).withConfiguration(HEALTH)
        .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=weir")
        .run(context -> assertThat(context).hasSingleBean(WeirEndpoint.class)
            .doesNotHaveBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void backsOffWithoutMicrometer() {
    new WebApplicationContextRunner().withConfiguration(WEIR).withConfiguration(ACTUATOR).withConfiguration(HEALTH)
        .withPropertyValues("management.endpoints.web.exposure.include=weir")
        .withClassLoader(new FilteredClassLoader("io.micrometer"))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirMeterBinder.class)
            .hasSingleBean(WeirEndpoint.class).hasSingleBean(WeirHealthIndicator.class));
  }

  @Test
  void backsOffWithoutActuator() {
    new WebApplicationContextRunner().withConfiguration(WEIR).withConfiguration(METRICS)
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirEndpoint.class)
            .doesNotHaveBean(WeirEndpointRequestBodyAdvice.class).hasSingleBean(WeirMeterBinder.class)
            .hasSingleBean(WeirHealthIndicator.class));
  }

  @Test
  void backsOffWithoutHealth() {
    new WebApplicationContextRunner().withConfiguration(WEIR).withConfiguration(METRICS).withConfiguration(ACTUATOR)
        .withPropertyValues("management.endpoints.web.exposure.include=weir")
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirHealthIndicator.class)
            .hasSingleBean(WeirEndpoint.class));
  }

  @Test
  void backsOffWithoutJackson() {
    runner.withClassLoader(new FilteredClassLoader("tools.jackson")).run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(WeirEndpoint.class)
            .hasSingleBean(WeirHealthIndicator.class).hasSingleBean(WeirMeterBinder.class));
  }

  @Test
  void healthIndicatorCanBeDisabled() {
    runner.withPropertyValues("management.health.weir.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(WeirHealthIndicator.class));
  }

  @Test
  void nothingWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false").run(context -> assertThat(context).hasNotFailed()
        .doesNotHaveBean(WeirMeterBinder.class).doesNotHaveBean(WeirEndpoint.class)
        .doesNotHaveBean(WeirHealthIndicator.class));
  }

  @Test
  void theApplicationsOwnBeansWin() {
    WeirMeterBinder binder = new WeirMeterBinder(Weir.builder().build(), List.of());
    runner.withBean("myBinder", WeirMeterBinder.class, () -> binder)
        .withBean("weirHealthIndicator", WeirHealthIndicator.class,
            () -> new WeirHealthIndicator(Weir.builder().build()))
        .run(context -> {
          assertThat(context).hasSingleBean(WeirMeterBinder.class).hasSingleBean(WeirHealthIndicator.class);
          assertThat(context.getBean(WeirMeterBinder.class)).isSameAs(binder);
        });
  }

  @Test
  void healthIsUpWithoutOpenCircuits() {
    runner.run(context -> {
      Health health = context.getBean(WeirHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).isEqualTo(Map.of("circuits", Map.of(), "cluster", "disabled"));
    });
  }

  @Test
  void endpointTakesRulesAsJsonTextAndThrowsWhenTheyAreInvalid() {
    runner.run(context -> {
      WeirEndpoint endpoint = context.getBean(WeirEndpoint.class);
      WeirEndpoint.ResourceDescriptor done = endpoint.replaceRules(SecurityContext.NONE, "unit.posted",
          "{\"flow\": [{\"count\": 4, \"maxQueueingTime\": \"PT0.1S\", \"controlBehavior\": \"queue\"}]}");
      assertThat(done.rules().flow()).singleElement().satisfies(rule -> assertThat(rule)
          .containsEntry("count", 4L).containsEntry("maxQueueingTime", "100ms")
          .containsEntry("controlBehavior", "queue"));
      assertThat(context.getBean(Weir.class).rules().rules("unit.posted").flow()).hasSize(1);
      assertThatThrownBy(() -> endpoint.replaceRules(SecurityContext.NONE, "unit.posted",
          "{\"flow\": [{\"count\": -4}]}")).isInstanceOf(InvalidEndpointRequestException.class)
          .hasMessageContaining("flow[0].count: must be a number >= 0");
      assertThatThrownBy(() -> endpoint.replaceRules(SecurityContext.NONE, "unit.posted",
          "{\"flow\": {\"count\": 4}}")).isInstanceOf(InvalidEndpointRequestException.class)
          .hasMessageContaining("flow: must be a list of rules");
      assertThatThrownBy(() -> endpoint.replaceRules(SecurityContext.NONE, "unit.posted",
          "{\"flow\": \"[{\"}")).isInstanceOf(InvalidEndpointRequestException.class)
          .hasMessageContaining("flow: must be a JSON list of rules");
      assertThat(context.getBean(Weir.class).rules().rules("unit.posted").flow()).singleElement()
          .satisfies(rule -> assertThat(rule.count()).isEqualTo(4.0));
      assertThat(endpoint.resource("unit.unknown")).isNull();
    });
  }
}
