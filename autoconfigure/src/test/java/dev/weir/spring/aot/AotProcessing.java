package dev.weir.spring.aot;

import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.actuate.WeirEndpointAutoConfiguration;
import dev.weir.spring.autoconfigure.actuate.WeirHealthContributorAutoConfiguration;
import dev.weir.spring.autoconfigure.metrics.WeirMetricsAutoConfiguration;
import dev.weir.spring.autoconfigure.webmvc.WeirWebMvcAutoConfiguration;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * Runs Spring's ahead-of-time processing, as the Spring Boot build plugins do before
 * {@code native-image}, on a servlet application with Weir's auto-configurations, the actuator's
 * endpoint and health support and the given user configuration, and returns the runtime hints it
 * collected.
 */
final class AotProcessing {

  private AotProcessing() {
  }

  static RuntimeHints hintsOf(Class<?> userConfiguration, String... properties) {
    AtomicReference<RuntimeHints> hints = new AtomicReference<>();
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirWebMvcAutoConfiguration.class,
            WeirMetricsAutoConfiguration.class, WeirEndpointAutoConfiguration.class,
            WeirHealthContributorAutoConfiguration.class, EndpointAutoConfiguration.class,
            WebEndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class))
        .withUserConfiguration(userConfiguration)
        .withPropertyValues("management.endpoints.web.exposure.include=weir")
        .withPropertyValues(properties)
        .prepare(context -> {
          DefaultGenerationContext generation = new DefaultGenerationContext(
              new ClassNameGenerator(ClassName.get("dev.weir.spring.aot.generated", "HintsTest")),
              new InMemoryGeneratedFiles());
          new ApplicationContextAotGenerator().processAheadOfTime(
              (GenericApplicationContext) context.getSourceApplicationContext(), generation);
          hints.set(generation.getRuntimeHints());
        });
    return hints.get();
  }
}
