package dev.weir.spring.autoconfigure.gateway;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.gateway.GatewayResources;
import dev.weir.spring.gateway.WeirFilterFunctions;
import dev.weir.spring.gateway.WeirRateLimiter;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.properties.WeirProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * Auto-configuration of Weir for Spring Cloud Gateway, each server only when it is on the class
 * path and enabled, in a web application of its kind:
 * <ul>
 *   <li>Server WebFlux: a {@link WeirRateLimiter} bean ({@code weirRateLimiter}), primary, so that
 *       the gateway's {@code RequestRateLimiter} filter uses it unless a route names another
 *       ({@code rate-limiter: "#{@redisRateLimiter}"}).
 *   <li>Server MVC: the YAML filter {@code Weir} ({@link WeirFilterFunctions.FilterSupplier}).
 * </ul>
 * Both share a {@link GatewayResources} bean: the routes' resources on the engine, with
 * {@code weir.web.rate-limit-headers}. Runs before the gateways' own auto-configuration, whose
 * filter looks for a {@code RateLimiter} bean.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class,
    beforeName = {"org.springframework.cloud.gateway.config.GatewayAutoConfiguration",
        "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration",
        "org.springframework.cloud.gateway.server.mvc.GatewayServerMvcAutoConfiguration",
        "org.springframework.cloud.gateway.server.mvc.filter.FilterAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBean(Weir.class)
public final class WeirGatewayAutoConfiguration {

  /** Spring Cloud Gateway Server WebFlux: Weir as its {@code RateLimiter}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnClass(name = {"org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter",
      "reactor.core.publisher.Mono"})
  @ConditionalOnBooleanProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
  static final class WebFluxServer {

    @Bean
    @ConditionalOnMissingBean
    GatewayResources weirGatewayResources(Weir weir, WeirProperties properties) {
      return new GatewayResources(weir, properties.getWeb().isRateLimitHeaders());
    }

    @Bean
    @Primary
    @ConditionalOnMissingBean
    WeirRateLimiter weirRateLimiter(GatewayResources resources, ObjectProvider<RefusalObserver> observer,
        ConfigurationService configurationService) {
      return new WeirRateLimiter(resources, observer.getIfAvailable(RefusalObserver::none), configurationService);
    }
  }

  /** Spring Cloud Gateway Server MVC: the YAML filter {@code Weir}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(name = "org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier")
  @ConditionalOnBooleanProperty(name = "spring.cloud.gateway.server.webmvc.enabled", matchIfMissing = true)
  static final class MvcServer {

    @Bean
    @ConditionalOnMissingBean
    GatewayResources weirGatewayResources(Weir weir, WeirProperties properties) {
      return new GatewayResources(weir, properties.getWeb().isRateLimitHeaders());
    }

    @Bean
    @ConditionalOnMissingBean
    WeirFilterFunctions.FilterSupplier weirGatewayFilterSupplier() {
      return new WeirFilterFunctions.FilterSupplier();
    }
  }
}
