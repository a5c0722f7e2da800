package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Entry;
import dev.weir.Weir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What the application is told at start: unused rules, and where an invalid value was set. */
@ExtendWith(OutputCaptureExtension.class)
class StartupCheckTests {

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({AopAutoConfiguration.class, WeirAutoConfiguration.class})
  static class App {
    /** Code that uses a resource while the application starts. */
    @Bean
    ApplicationRunner warmUp(Weir weir) {
      return args -> {
        try (Entry entry = weir.entry("usedByCode")) {
          // a call made at start, without @RateLimited
        }
      };
    }
  }

  /** Its guarded method cannot be reached through a proxy. */
  static class PrivateGuarded {
    @dev.weir.annotation.RateLimited("private")
    private String hidden() {
      return "hidden";
    }

    String callHidden() {
      return hidden();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class PrivateGuardedConfig {
    @Bean
    PrivateGuarded privateGuarded() {
      return new PrivateGuarded();
    }
  }

  private static void start(String... properties) {
    new SpringApplicationBuilder(App.class, BrokenBeans.ValidConfig.class, PrivateGuardedConfig.class)
        .web(WebApplicationType.NONE).properties("spring.main.banner-mode=off", "spring.config.name=none")
        .properties(properties).run().close();
  }

  @Test
  void warnsThatAnAnnotatedPrivateMethodIsNotGuarded(CapturedOutput output) {
    start();
    assertThat(output.getAll()).contains("WARN").contains("@RateLimited on "
        + PrivateGuarded.class.getName() + ".hidden() has no effect: private methods are not called through the"
        + " bean's proxy.");
  }

  @Test
  void warnsAboutARuleWhoseResourceNothingUses(CapturedOutput output) {
    start("weir.flow[0].resource=crateOrder", "weir.flow[0].count=5",
        "weir.flow[1].resource=createOrder", "weir.flow[1].count=5",
        "weir.flow[2].resource=usedByCode", "weir.flow[2].count=5");
    assertThat(output.getAll()).contains("WARN").contains("weir.flow[0].resource 'crateOrder' is used by no"
        + " @RateLimited method and no call so far (did you mean 'createOrder'?)");
    assertThat(output.getAll()).doesNotContain("'createOrder' is used by no").doesNotContain("'usedByCode' is used by no");
  }

  @Test
  void noWarningWhenEveryRuleIsUsed(CapturedOutput output) {
    start("weir.flow[0].resource=createOrder", "weir.flow[0].count=5");
    assertThat(output.getAll()).doesNotContain("is used by no @RateLimited method");
  }

  @Test
  void relatedRuleMayReferToAResourceUsedByCodeOrAnnotation(CapturedOutput output) {
    start("weir.flow[0].resource=createOrder", "weir.flow[0].count=5", "weir.flow[0].strategy=related",
        "weir.flow[0].ref-resource=other", "weir.flow[1].resource=other", "weir.flow[1].count=5");
    assertThat(output.getAll()).doesNotContain("APPLICATION FAILED TO START");
  }

  @Test
  void failureReportShowsWhereTheValueWasSet(CapturedOutput output) {
    assertThatThrownBy(() -> start("spring.config.name=bad-config"))
        .hasRootCauseInstanceOf(InvalidWeirConfigurationException.class);
    assertThat(output.getAll()).contains("weir.flow[0].count: must be a number >= 0")
        .contains("(value '-5' from class path resource [bad-config.yml] - 4:14)");
  }
}
