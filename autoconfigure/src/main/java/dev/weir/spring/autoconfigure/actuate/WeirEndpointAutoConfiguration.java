package dev.weir.spring.autoconfigure.actuate;

import dev.weir.Weir;
import dev.weir.spring.actuate.FleetRules;
import dev.weir.spring.actuate.WeirEndpoint;
import dev.weir.spring.actuate.WeirEndpointRequestBodyAdvice;
import dev.weir.spring.actuate.WeirEndpointWebExtension;
import dev.weir.spring.actuate.WeirEndpointWebFilter;
import dev.weir.spring.autoconfigure.ResourcesInUse;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.rules.RuleSources;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.server.WebFilter;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of the {@code weir} actuator endpoint ({@link WeirEndpoint}, its HTTP answers,
 * {@link WeirEndpointWebExtension}, and on Spring MVC the {@link WeirEndpointRequestBodyAdvice}, on
 * WebFlux the {@link WeirEndpointWebFilter}, that let its write operation take a JSON object of
 * lists and answer a body over 1 MiB with 413). Like every actuator endpoint it exists only when it is
 * available: accessible ({@code management.endpoint.weir.access}) and exposed, for HTTP with
 * {@code management.endpoints.web.exposure.include=weir}. Its access is read-only by default: the
 * write operation needs {@code management.endpoint.weir.access=unrestricted}. Accepted writes go to
 * the application's {@link RuleChangeLog}.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, JsonMapper.class})
@ConditionalOnBean(Weir.class)
public final class WeirEndpointAutoConfiguration {

  // The actuator's conditions on the methods: they are read only once the class conditions hold.
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  WeirEndpoint weirEndpoint(Weir weir, WeirProperties properties, ObjectProvider<RuleSources> sources,
      ObjectProvider<RuleChangeLog> changes, ObjectProvider<ResourcesInUse> inUse, ObjectProvider<FleetRules> fleet) {
    ResourcesInUse resources = inUse.getIfUnique();
    return new WeirEndpoint(weir, sources.getIfAvailable(), properties.isShadow(),
        changes.getIfAvailable(() -> new RuleChangeLog(null)),
        resource -> resources == null ? null : resources.warning(resource), fleet.getIfUnique());
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(WeirEndpoint.class)
  @ConditionalOnAvailableEndpoint(endpoint = WeirEndpoint.class, exposure = EndpointExposure.WEB)
  WeirEndpointWebExtension weirEndpointWebExtension(WeirEndpoint endpoint,
      ObjectProvider<EndpointAccessResolver> access) {
    // The page offers its rule editor only when POST is mapped: the same resolver decides that.
    return new WeirEndpointWebExtension(endpoint, () -> writesOpen(access));
  }

  /** Whether the write operation is open (mapped): {@code management.endpoint.weir.access=unrestricted}. */
  private static boolean writesOpen(ObjectProvider<EndpointAccessResolver> access) {
    EndpointAccessResolver resolver = access.getIfAvailable();
    return resolver != null && resolver.accessFor(EndpointId.of("weir"), Access.READ_ONLY) == Access.UNRESTRICTED;
  }

  /** The start's one line on how to expose the page, when it is not exposed over HTTP. */
  @Bean
  @ConditionalOnWebApplication
  WeirEndpointExposureHint weirEndpointExposureHint(ListableBeanFactory beans, Environment environment) {
    return new WeirEndpointExposureHint(beans, environment);
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnClass(WebFilter.class)
  static final class WebFlux {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(endpoint = WeirEndpoint.class, exposure = EndpointExposure.WEB)
    WeirEndpointWebFilter weirEndpointWebFilter(ObjectProvider<PathMappedEndpoints> endpoints,
        ObjectProvider<EndpointAccessResolver> access) {
      return new WeirEndpointWebFilter(SingletonSupplier.of(() -> {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        String path = mapped != null ? mapped.getPath(EndpointId.of("weir")) : null;
        return path != null ? path : "/actuator/weir";
      }), () -> writesOpen(access));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(RequestBodyAdviceAdapter.class)
  static final class WebMvc {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(endpoint = WeirEndpoint.class, exposure = EndpointExposure.WEB)
    WeirEndpointRequestBodyAdvice weirEndpointRequestBodyAdvice(ObjectProvider<PathMappedEndpoints> endpoints) {
      return new WeirEndpointRequestBodyAdvice(SingletonSupplier.of(() -> {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        String path = mapped != null ? mapped.getRootPath(EndpointId.of("weir")) : null;
        return path != null ? path : "weir";
      }));
    }
  }
}
