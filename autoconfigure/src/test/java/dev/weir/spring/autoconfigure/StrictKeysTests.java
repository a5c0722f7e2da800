package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.WeirProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A key under {@code weir.} that is no Weir property stops the start, named with the nearest known
 * key, from every kind of property source; with {@code weir.strict-keys: false} it is a warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class StrictKeysTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class));

  @Test
  void aMisspeltKeyOfARuleStopsTheStartNamingTheNearestKey() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].count=2", "weir.flow[0].intervall=10s")
        .run(context -> assertThat(violations(context)).containsExactly(
            new RuleViolation("weir.flow[0].intervall", "unknown key (did you mean 'interval'?)")));
  }

  @Test
  void aMisspeltListIsNamedOnceHoweverManyKeysItHas() {
    runner.withPropertyValues("weir.flwo[0].resource=a", "weir.flwo[0].count=2", "weir.flwo[1].resource=b",
        "weir.flwo[1].count=3").run(context -> assertThat(violations(context)).containsExactly(
            new RuleViolation("weir.flwo", "unknown key (did you mean 'flow'?)")));
  }

  @Test
  void theMisspeltKeyIsNamedBeforeTheRequiredKeyItLeavesMissing() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].cuont=2")
        .run(context -> assertThat(violations(context)).extracting(RuleViolation::toString).containsExactly(
            "weir.flow[0].cuont: unknown key (did you mean 'count'?)",
            "weir.flow[0].count: is required: a number >= 0 (calls per interval for grade qps, calls inside at once"
                + " for grade threads; 0 refuses every call)"));
  }

  @Test
  void everyLevelIsChecked() {
    runner.withPropertyValues("weir.enabeld=true", "weir.cluster.timout=1s", "weir.web.routes[0].resource=api",
        "weir.web.routes[0].pathh=/api/**", "weir.web.routes[0].path=/api/**",
        "weir.param-flow[0].resource=a", "weir.param-flow[0].count=1", "weir.param-flow[0].exceptions[0].value=v",
        "weir.param-flow[0].exceptions[0].count=2", "weir.param-flow[0].exceptions[0].cont=3",
        "weir.rules.sentinel.flow-fil=x.json", "weir.enabled.really=yes", "weir.degrade.resource=a",
        "weir.flow[0].resource=a", "weir.flow[0].count=1", "weir.flow[0].xyzzy=1")
        .run(context -> assertThat(violations(context)).extracting(RuleViolation::toString).containsExactlyInAnyOrder(
            "weir.enabeld: unknown key (did you mean 'enabled'?)",
            "weir.cluster.timout: unknown key (did you mean 'timeout'?)",
            "weir.web.routes[0].pathh: unknown key (did you mean 'path'?)",
            "weir.param-flow[0].exceptions[0].cont: unknown key (did you mean 'count'?)",
            "weir.rules.sentinel.flow-fil: unknown key (did you mean 'flow-file'?)",
            "weir.enabled.really: unknown key: weir.enabled takes a value, not keys",
            "weir.degrade.resource: unknown key: weir.degrade is a list, its entries are weir.degrade[0],"
                + " weir.degrade[1], ...",
            "weir.flow[0].xyzzy: unknown key; the keys of weir.flow[0] are [cluster-mode, cold-factor,"
                + " control-behavior, count, exact, grade, initial-limit, interval, limit-app, max-limit,"
                + " max-queueing-count, max-queueing-time, min-limit, name, ref-resource, resource, shadow, strategy,"
                + " warm-up-period]"));
  }

  @Test
  void relaxedNamesIndexesAndMapKeysAreKnown() {
    for (String maxResources : List.of("max-resources", "maxResources", "max_resources", "MAXRESOURCES")) {
      runner.withPropertyValues("weir." + maxResources + "=77", "weir.flow[0].resource=a",
          "weir.flow[0].control_behavior=warm-up", "weir.flow[0].warmUpPeriod=2s", "weir.flow[0].count=9",
          "weir.metrics.tags.region=eu", "weir.metrics.tags[team.name]=payments",
          "weir.web.routes[0].resource=api", "weir.web.routes[0].path=/api/**",
          "weir.web.routes[0].headers.X-Api-Key=secret", "weir.web.routes[0].methods[0]=GET",
          "weir.authority[0].resource=a", "weir.authority[0].limit-app=x,y").run(context -> {
            assertThat(context).as(maxResources).hasNotFailed();
            WeirProperties properties = context.getBean(WeirProperties.class);
            assertThat(properties.getMaxResources()).isEqualTo(77);
            assertThat(properties.getFlow().get(0).getWarmUpPeriod()).isEqualTo(Duration.ofSeconds(2));
            assertThat(properties.getMetrics().getTags()).containsEntry("team.name", "payments");
            assertThat(properties.getWeb().getRoutes().get(0).getHeaders()).containsEntry("X-Api-Key", "secret");
          });
    }
  }

  @Test
  void environmentVariablesAreCheckedWithTheirRelaxedNames() {
    runner.withInitializer(context -> environment(context.getEnvironment(), Map.of("WEIR_FLOW_0_RESOURCE", "a",
        "WEIR_FLOW_0_COUNT", "2", "WEIR_FLOW_0_INTERVALL", "10s", "WEIR_FLOW_0_CONTROL_BEHAVIOUR", "reject",
        "WEIR_FLWO_1_COUNT", "3"))).run(context -> assertThat(violations(context)).containsExactlyInAnyOrder(
            new RuleViolation("weir.flow[0].intervall", "unknown key (did you mean 'interval'?)"),
            new RuleViolation("weir.flow[0].control.behaviour", "unknown key (did you mean 'control-behavior'?)"),
            new RuleViolation("weir.flwo[1].count", "unknown key (did you mean 'flow'?)")));
  }

  /**
   * The environment holds every program's variables: one whose first part after WEIR_ is nothing
   * like a Weir property (Kubernetes sets WEIR_SERVICE_HOST and WEIR_PORT_... for a service named
   * weir) is not Weir's, and left alone; the underscore of a variable may stand for a dash.
   */
  @Test
  void environmentVariablesThatAreNotWeirsAreLeftAlone() {
    runner.withInitializer(context -> environment(context.getEnvironment(), Map.of("WEIR_FOO", "1",
        "WEIR_SERVICE_HOST", "10.0.0.7", "WEIR_PORT_8080_TCP_ADDR", "10.0.0.7", "WEIR_MAX_RESOURCES", "77",
        "WEIR_FLOW_0_RESOURCE", "a", "WEIR_FLOW_0_COUNT", "2", "WEIR_FLOW_0_CONTROL_BEHAVIOR", "warm-up",
        "WEIR_METRICS_TAGS_REGION", "eu", "WEIR_WEB_ROUTES_0_HEADERS_X_API_KEY", "secret")))
        .withPropertyValues("weir.web.routes[0].resource=api", "weir.web.routes[0].path=/api/**").run(context -> {
          assertThat(context).hasNotFailed();
          WeirProperties properties = context.getBean(WeirProperties.class);
          assertThat(properties.getMaxResources()).isEqualTo(77);
          assertThat(properties.getMetrics().getTags()).containsEntry("region", "eu");
        });
  }

  @Test
  void withoutStrictKeysEachUnknownKeyIsOneWarning(CapturedOutput output) {
    runner.withPropertyValues("weir.strict-keys=false", "weir.flow[0].resource=a", "weir.flow[0].count=2",
        "weir.flow[0].intervall=10s", "weir.flwo[0].resource=b", "weir.flwo[0].count=2").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(Weir.class).rules().rules("a").flow()).singleElement()
              .satisfies(rule -> assertThat(rule.interval()).isEqualTo(Duration.ofSeconds(1)));
        });
    assertThat(output.getAll().lines().filter(line -> line.contains("WARN")).toList())
        .filteredOn(line -> line.contains("unknown key")).satisfiesExactlyInAnyOrder(
            line -> assertThat(line).contains("weir.flow[0].intervall: unknown key (did you mean 'interval'?)")
                .contains("it is ignored (weir.strict-keys is false)"),
            line -> assertThat(line).contains("weir.flwo: unknown key (did you mean 'flow'?)"));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnEngine {
    @Bean(destroyMethod = "close")
    Weir weir() {
      return Weir.builder().build();
    }
  }

  @Test
  void anApplicationsOwnEngineDoesNotHideAnUnknownKey() {
    runner.withUserConfiguration(OwnEngine.class).withPropertyValues("weir.max-resorces=10")
        .run(context -> assertThat(violations(context)).containsExactly(
            new RuleViolation("weir.max-resorces", "unknown key (did you mean 'max-resources'?)")));
  }

  @Test
  void withWeirDisabledNothingIsChecked() {
    runner.withPropertyValues("weir.enabled=false", "weir.flwo[0].count=1")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Weir.class));
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({AopAutoConfiguration.class, WeirAutoConfiguration.class})
  static class App {
  }

  /** A real start from a YAML file: the failure report names each key, the nearest one and the line. */
  @Test
  void theFailureReportNamesTheKeyTheNearestOneAndWhereItWasWritten(CapturedOutput output) {
    assertThatThrownBy(() -> start("spring.config.location=classpath:strict-keys/typo.yml"))
        .hasRootCauseInstanceOf(InvalidWeirConfigurationException.class);
    String report = report(output);
    assertThat(report).contains("weir.flow[0].intervall: unknown key (did you mean 'interval'?)\n"
        + "\t\t(value '10s' from class path resource [strict-keys/typo.yml] - 5:18)");
    assertThat(report).contains("weir.flwo: unknown key (did you mean 'flow'?)");
  }

  /** The same from a .properties file, with relaxed names and map keys that are known. */
  @Test
  void aPropertiesFileIsCheckedAlike(CapturedOutput output) {
    assertThatThrownBy(() -> start("spring.config.location=classpath:strict-keys/typo.properties"))
        .hasRootCauseInstanceOf(InvalidWeirConfigurationException.class);
    String report = report(output);
    assertThat(report).contains("weir.flow[0].cuont: unknown key (did you mean 'count'?)\n"
        + "\t\t(value '2' from class path resource [strict-keys/typo.properties] - 2:20)");
    assertThat(report).doesNotContain("maxResources").doesNotContain("X-Api-Key").doesNotContain("region");
  }

  private static void start(String... properties) {
    new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off").properties(properties).run().close();
  }

  private static String report(CapturedOutput output) {
    String all = output.getAll();
    assertThat(all).contains("APPLICATION FAILED TO START");
    return all.substring(all.indexOf("APPLICATION FAILED TO START"));
  }

  private static void environment(org.springframework.core.env.ConfigurableEnvironment environment,
      Map<String, Object> variables) {
    environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
  }

  private static List<RuleViolation> violations(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    Throwable failure = context.getStartupFailure();
    while (failure != null && !(failure instanceof InvalidWeirConfigurationException)) {
      failure = failure.getCause();
    }
    assertThat(failure).as("an InvalidWeirConfigurationException in " + context.getStartupFailure()).isNotNull();
    return ((InvalidWeirConfigurationException) failure).violations();
  }
}
