package dev.weir.spring.autoconfigure.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The gateway auto-configuration in an application without Spring Cloud Gateway: this module's tests
 * run without either gateway on the class path (see its pom), so these contexts are what such an
 * application gets. With the gateways, the gateway-tests module tests it.
 */
class WeirGatewayAutoConfigurationBackOffTests {

  private static final AutoConfigurations CONFIGURATIONS =
      AutoConfigurations.of(WeirAutoConfiguration.class, WeirGatewayAutoConfiguration.class);

  @Test
  void theGatewaysAreNotOnThisClassPath() {
    assertThatThrownBy(() -> Class.forName("org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void aReactiveApplicationWithoutTheGatewayStartsWithoutGatewayBeans() {
    new ReactiveWebApplicationContextRunner().withConfiguration(CONFIGURATIONS).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Weir.class);
      assertThat(context.getBeanNamesForType(Object.class)).noneMatch(name -> name.startsWith("weirGateway")
          || name.equals("weirRateLimiter"));
    });
  }

  @Test
  void aServletApplicationWithoutTheGatewayStartsWithoutGatewayBeans() {
    new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Weir.class);
      assertThat(context.getBeanNamesForType(Object.class)).noneMatch(name -> name.startsWith("weirGateway"));
    });
  }
}
