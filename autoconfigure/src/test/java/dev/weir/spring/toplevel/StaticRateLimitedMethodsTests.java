package dev.weir.spring.toplevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.spring.aop.RateLimitedDeclarationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.toplevel.kotlin.TopLevelApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code @RateLimited} static method in the application's packages, of a class that is no bean,
 * stops the start naming it: a Kotlin top-level (extension) function and a Java static method. The
 * application's packages are registered as {@code @SpringBootApplication} registers its own.
 */
class StaticRateLimitedMethodsTests {

  private final ApplicationContextRunner contexts = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class));

  private ApplicationContextRunner inPackage(String name) {
    return contexts.withInitializer(context ->
        AutoConfigurationPackages.register((BeanDefinitionRegistry) context.getBeanFactory(), name));
  }

  @Test
  void aKotlinTopLevelExtensionFunctionStopsTheStart() {
    inPackage("dev.weir.spring.toplevel.kotlin").run(context -> {
      assertThat(context).hasFailed();
      Throwable cause = context.getStartupFailure();
      assertThat(cause).isInstanceOf(RateLimitedDeclarationException.class)
          .hasMessageContaining("dev.weir.spring.toplevel.kotlin.TopLevelKt.shout(String)")
          .hasMessageContaining("a Kotlin top-level function, an extension function too");
      assertThat(((RateLimitedDeclarationException) cause).action()).contains("weir-kotlin's guard");
    });
  }

  @Test
  void aStaticMethodOfAClassThatIsNoBeanStopsTheStart() {
    inPackage("dev.weir.spring.toplevel.java").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).isInstanceOf(RateLimitedDeclarationException.class)
          .hasMessageContaining("dev.weir.spring.toplevel.java.Lookups.find(String)")
          .hasMessageContaining("the method is static, and a static method is never called through a bean's proxy");
    });
  }

  @Test
  void aSpringBootApplicationWithATopLevelGuardedFunctionDoesNotStart() {
    // a real start: component scanning, Boot's shared class-file readers, the failure analysis
    SpringApplicationBuilder application = new SpringApplicationBuilder(TopLevelApplication.class)
        .web(WebApplicationType.NONE).properties("spring.main.banner-mode=off", "logging.level.root=OFF");
    assertThatThrownBy(application::run).isInstanceOf(RateLimitedDeclarationException.class)
        .hasMessageContaining("TopLevelKt.shout(String)");
  }

  @Test
  void packagesWithoutStaticGuardedMethodsStart() {
    // the getting-started example's package: a bean with a guarded instance method
    inPackage("dev.weir.spring.docs.examples.gettingstarted").run(context -> assertThat(context).hasNotFailed());
    // guarded open suspend functions: Kotlin compiles each with a static synthetic name$suspendImpl
    // that carries the annotation, which is no declaration of the user's
    inPackage("dev.weir.spring.kotlin").run(context -> assertThat(context).hasNotFailed());
    // no auto-configuration packages (a context built by hand): nothing is scanned
    contexts.run(context -> assertThat(context).hasNotFailed());
  }
}
