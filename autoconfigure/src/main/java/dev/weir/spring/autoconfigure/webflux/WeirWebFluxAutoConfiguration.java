package dev.weir.spring.autoconfigure.webflux;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.webflux.BlockWebExceptionHandler;
import dev.weir.spring.webflux.ProblemDetailReactiveBlockResponseFactory;
import dev.weir.spring.webflux.ReactiveBlockResponseFactory;
import dev.weir.spring.webflux.ReactiveOriginResolver;
import dev.weir.spring.webflux.WeirContextWebFilter;
import dev.weir.spring.webflux.WeirRouteWebFilter;
import dev.weir.spring.autoconfigure.WebRoutes;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.StringUtils;
import org.springframework.web.reactive.DispatcherHandler;
import reactor.core.publisher.Mono;

/**
 * Auto-configuration of Weir for Spring WebFlux: the HTTP answers to refused calls (a
 * {@link BlockWebExceptionHandler} using the {@link ReactiveBlockResponseFactory} bean, by default
 * {@link ProblemDetailReactiveBlockResponseFactory}), and a {@link WeirContextWebFilter} that puts
 * each request's Weir context, with the origin the {@link ReactiveOriginResolver} bean gives (by
 * default the header named by {@code weir.web.origin-header}, else none) and the criticality claimed
 * by the header named by {@code weir.web.criticality-header}, in its Reactor context.
 * Only in a reactive web application with WebFlux and Reactor on the classpath.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class,
    afterName = "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({DispatcherHandler.class, Mono.class})
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnBean(Weir.class)
public final class WeirWebFluxAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ReactiveOriginResolver weirReactiveOriginResolver(WeirProperties properties) {
    String header = properties.getWeb().getOriginHeader();
    return StringUtils.hasText(header) ? ReactiveOriginResolver.header(header.strip()) : ReactiveOriginResolver.none();
  }

  @Bean
  @ConditionalOnMissingBean
  ReactiveBlockResponseFactory weirReactiveBlockResponseFactory() {
    return new ProblemDetailReactiveBlockResponseFactory();
  }

  @Bean
  BlockWebExceptionHandler weirBlockWebExceptionHandler(ReactiveBlockResponseFactory responses,
      ObjectProvider<ServerCodecConfigurer> codecs, WeirProperties properties) {
    return new BlockWebExceptionHandler(responses, () -> {
      ServerCodecConfigurer configurer = codecs.getIfUnique();
      return configurer != null ? configurer.getWriters() : List.of();
    }, properties.getWeb().isRateLimitHeaders());
  }

  @Bean
  @ConditionalOnExpression("!'${weir.web.routes[0].path:}'.isEmpty()")
  WeirRouteWebFilter weirRouteWebFilter(Weir weir, WeirProperties properties,
      ObjectProvider<RefusalObserver> observer) {
    return new WeirRouteWebFilter(weir, WebRoutes.of(properties), properties.getWeb().isRateLimitHeaders(),
        observer.getIfAvailable(RefusalObserver::none));
  }

  @Bean
  WeirContextWebFilter weirContextWebFilter(ReactiveOriginResolver originResolver, WeirProperties properties) {
    return new WeirContextWebFilter(originResolver, properties.getWeb().getCriticalityHeader());
  }
}
