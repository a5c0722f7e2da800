package dev.weir.spring.autoconfigure.webmvc;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.webmvc.BlockExceptionResolver;
import dev.weir.spring.webmvc.BlockResponseFactory;
import dev.weir.spring.webmvc.OriginResolver;
import dev.weir.spring.webmvc.ProblemDetailBlockResponseFactory;
import dev.weir.spring.webmvc.WeirContextFilter;
import dev.weir.spring.webmvc.WeirRouteFilter;
import dev.weir.spring.autoconfigure.WebRoutes;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.StringUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Auto-configuration of Weir for Spring MVC: the HTTP answers to refused calls (a
 * {@link BlockExceptionResolver} using the {@link BlockResponseFactory} bean, by default
 * {@link ProblemDetailBlockResponseFactory}), and a {@link WeirContextFilter} that runs each
 * request in context {@value WeirContextFilter#CONTEXT_NAME} with the origin the
 * {@link OriginResolver} bean gives (by default the header named by
 * {@code weir.web.origin-header}, else none) and the criticality the header named by
 * {@code weir.web.criticality-header} claims.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class,
    afterName = "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBean(Weir.class)
public final class WeirWebMvcAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  OriginResolver weirOriginResolver(WeirProperties properties) {
    String header = properties.getWeb().getOriginHeader();
    return StringUtils.hasText(header) ? OriginResolver.header(header.strip()) : OriginResolver.none();
  }

  @Bean
  @ConditionalOnMissingBean
  BlockResponseFactory weirBlockResponseFactory() {
    return new ProblemDetailBlockResponseFactory();
  }

  @Bean
  BlockExceptionResolver weirBlockExceptionResolver(BlockResponseFactory responses,
      ObjectProvider<RequestMappingHandlerAdapter> adapter, WeirProperties properties) {
    return new BlockExceptionResolver(responses, converters(adapter), properties.getWeb().isRateLimitHeaders());
  }

  @Bean
  @ConditionalOnExpression("!'${weir.web.routes[0].path:}'.isEmpty()")
  FilterRegistrationBean<WeirRouteFilter> weirRouteFilter(Weir weir, WeirProperties properties,
      BlockResponseFactory responses, ObjectProvider<RequestMappingHandlerAdapter> adapter,
      ObjectProvider<RefusalObserver> observer) {
    FilterRegistrationBean<WeirRouteFilter> registration = new FilterRegistrationBean<>(new WeirRouteFilter(weir,
        WebRoutes.of(properties), responses, converters(adapter), properties.getWeb().isRateLimitHeaders(),
        observer.getIfAvailable(RefusalObserver::none)));
    registration.setOrder(WeirRouteFilter.DEFAULT_ORDER);
    return registration;
  }

  private static Supplier<List<HttpMessageConverter<?>>> converters(
      ObjectProvider<RequestMappingHandlerAdapter> adapter) {
    return () -> {
      RequestMappingHandlerAdapter mvc = adapter.getIfUnique();
      return mvc != null ? mvc.getMessageConverters() : List.of();
    };
  }

  @Bean
  FilterRegistrationBean<WeirContextFilter> weirContextFilter(Weir weir, OriginResolver originResolver,
      WeirProperties properties) {
    FilterRegistrationBean<WeirContextFilter> registration = new FilterRegistrationBean<>(
        new WeirContextFilter(weir, originResolver, properties.getWeb().getCriticalityHeader()));
    registration.setOrder(WeirContextFilter.DEFAULT_ORDER);
    return registration;
  }
}
