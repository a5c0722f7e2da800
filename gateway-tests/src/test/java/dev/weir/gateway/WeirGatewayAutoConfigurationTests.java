package dev.weir.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.gateway.WeirGatewayAutoConfiguration;
import dev.weir.spring.gateway.GatewayResources;
import dev.weir.spring.gateway.WeirFilterFunctions;
import dev.weir.spring.gateway.WeirRateLimiter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.cloud.gateway.support.ConfigurationService;

/** {@link WeirGatewayAutoConfiguration} in contexts built for each case, with the gateways on the class path. */
class WeirGatewayAutoConfigurationTests {

  private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGatewayAutoConfiguration.class,
          GatewayAutoConfiguration.class, WebFluxAutoConfiguration.class, SslAutoConfiguration.class));

  private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGatewayAutoConfiguration.class));

  @Test
  void webFluxServerTheGatewaysFilterUsesWeirsLimiter() {
    reactive.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(WeirRateLimiter.class).hasSingleBean(GatewayResources.class);
      assertThat(context.getBean(RateLimiter.class)).isSameAs(context.getBean("weirRateLimiter"));
      assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
          .isSameAs(context.getBean(WeirRateLimiter.class));
      assertThat(context).doesNotHaveBean(WeirFilterFunctions.FilterSupplier.class);
    });
  }

  @Test
  void webFluxServerBacksOffWithoutTheGatewayClasses() {
    // a runner of its own: the shared one registers the gateway's auto-configuration, whose class is filtered here
    new ReactiveWebApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway"))
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGatewayAutoConfiguration.class,
            WebFluxAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(GatewayResources.class)
            .doesNotHaveBean("weirRateLimiter"));
  }

  @Test
  void webFluxServerBacksOffWhenDisabled() {
    reactive.withPropertyValues("spring.cloud.gateway.server.webflux.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirRateLimiter.class));
    reactive.withPropertyValues("weir.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirRateLimiter.class)
            .doesNotHaveBean(GatewayResources.class));
  }

  @Test
  void anApplicationsOwnWeirRateLimiterWins() {
    reactive.withUserConfiguration(OwnLimiter.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(WeirRateLimiter.class);
      assertThat(context).hasBean("ownLimiter").doesNotHaveBean("weirRateLimiter");
    });
  }

  @Test
  void mvcServerOffersTheYamlFilter() {
    servlet.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(GatewayResources.class);
      assertThat(context.getBean(FilterSupplier.class).get())
          .extracting(method -> method.getName() + "/" + method.getParameterCount())
          .containsExactlyInAnyOrder("weir/1", "weir/2");
      assertThat(context).doesNotHaveBean(WeirRateLimiter.class);
    });
  }

  @Test
  void mvcServerBacksOffWithoutTheGatewayClassesOrWhenDisabled() {
    servlet.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway"))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(GatewayResources.class));
    servlet.withPropertyValues("spring.cloud.gateway.server.webmvc.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirFilterFunctions.FilterSupplier.class));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnLimiter {

    @Bean
    WeirRateLimiter ownLimiter(GatewayResources resources, ConfigurationService configurationService) {
      return new WeirRateLimiter(resources, dev.weir.spring.observation.RefusalObserver.none(), configurationService);
    }
  }
}
