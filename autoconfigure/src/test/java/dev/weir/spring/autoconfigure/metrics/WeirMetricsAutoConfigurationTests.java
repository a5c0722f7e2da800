package dev.weir.spring.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.metrics.WeirMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link WeirMetricsAutoConfiguration}: when it applies, what it binds, and when it backs off. */
class WeirMetricsAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
          SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
          WeirAutoConfiguration.class, WeirMetricsAutoConfiguration.class));

  @Test
  void metersGoToTheApplicationsRegistryWithTheConfiguredTags() {
    runner.withPropertyValues("weir.metrics.tags.region=eu", "weir.metrics.tags.team=shop").run(context -> {
      assertThat(context).hasSingleBean(WeirMeterBinder.class);
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
  void offWithoutMicrometer() {
    runner.withClassLoader(new FilteredClassLoader("io.micrometer"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(WeirMeterBinder.class));
  }

  @Test
  void offWithoutAMeterRegistry() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirMetricsAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(WeirMeterBinder.class));
  }

  @Test
  void offWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirMeterBinder.class));
  }

  @Test
  void backsOffForTheApplicationsBinder() {
    WeirMeterBinder binder = new WeirMeterBinder(Weir.builder().build(), List.of());
    runner.withBean("myBinder", WeirMeterBinder.class, () -> binder).run(context -> {
      assertThat(context).hasSingleBean(WeirMeterBinder.class);
      assertThat(context.getBean(WeirMeterBinder.class)).isSameAs(binder);
    });
  }
}
