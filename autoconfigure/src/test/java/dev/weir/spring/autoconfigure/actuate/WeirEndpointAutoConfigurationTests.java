package dev.weir.spring.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Weir;
import dev.weir.spring.actuate.WeirEndpoint;
import dev.weir.spring.actuate.WeirEndpointRequestBodyAdvice;
import dev.weir.spring.actuate.WeirEndpointWebExtension;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * {@link WeirEndpointAutoConfiguration}: the endpoint exists when it is available (accessible and
 * exposed), with its web parts only when exposed over HTTP in a servlet application, and backs off
 * without the actuator, without Jackson and for the application's own endpoint bean.
 */
class WeirEndpointAutoConfigurationTests {

  private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(EndpointAutoConfiguration.class,
      WebEndpointAutoConfiguration.class, WeirAutoConfiguration.class, WeirEndpointAutoConfiguration.class);

  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(CONFIGURATIONS).withPropertyValues("management.endpoints.web.exposure.include=weir");

  @Test
  void endpointWebExtensionAndBodyAdviceWhenExposedOverHttp() {
    runner.run(context -> assertThat(context).hasSingleBean(WeirEndpoint.class)
        .hasSingleBean(WeirEndpointWebExtension.class).hasSingleBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void nothingWhenNotExposed() {
    new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS).run(context -> assertThat(context)
        .hasNotFailed().doesNotHaveBean(WeirEndpoint.class).doesNotHaveBean(WeirEndpointWebExtension.class)
        .doesNotHaveBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void nothingWhenItsAccessIsNone() {
    runner.withPropertyValues("management.endpoint.weir.access=NONE")
        .run(context -> assertThat(context).doesNotHaveBean(WeirEndpoint.class)
            .doesNotHaveBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void endpointWithoutItsWebPartsOverJmxOnly() {
    new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
        .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=weir")
        .run(context -> assertThat(context).hasSingleBean(WeirEndpoint.class)
            .doesNotHaveBean(WeirEndpointWebExtension.class).doesNotHaveBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void offWithoutTheActuator() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirEndpointAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(WeirEndpoint.class).doesNotHaveBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void offWithoutJackson() {
    runner.withClassLoader(new FilteredClassLoader("tools.jackson"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(WeirEndpoint.class));
  }

  @Test
  void offWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirEndpoint.class)
            .doesNotHaveBean(WeirEndpointRequestBodyAdvice.class));
  }

  @Test
  void backsOffForTheApplicationsEndpoint() {
    WeirEndpoint own = new WeirEndpoint(Weir.builder().build());
    runner.withBean("myWeirEndpoint", WeirEndpoint.class, () -> own).run(context -> {
      assertThat(context).hasSingleBean(WeirEndpoint.class);
      assertThat(context.getBean(WeirEndpoint.class)).isSameAs(own);
    });
  }

  @Test
  void writeOperationTakesTheBodyAsJsonTextAndThrowsWhenTheRulesAreInvalid() {
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
      assertThatThrownBy(() -> endpoint.replaceRules(SecurityContext.NONE, "unit.posted", "[]"))
          .isInstanceOf(InvalidEndpointRequestException.class)
          .hasMessageContaining("body: must be a JSON object with flow, degrade, paramFlow, authority");
      assertThat(context.getBean(Weir.class).rules().rules("unit.posted").flow()).singleElement()
          .satisfies(rule -> assertThat(rule.count()).isEqualTo(4.0));
      assertThat(endpoint.resource("unit.unknown")).isNull();
    });
  }
}
