package dev.weir.spring.autoconfigure.client;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import dev.weir.spring.autoconfigure.observation.WeirObservationAutoConfiguration;
import dev.weir.spring.client.ClientGuard;
import dev.weir.spring.client.UpstreamPauses;
import dev.weir.spring.client.WeirClientHttpRequestInterceptor;
import dev.weir.spring.client.WeirExchangeFilterFunction;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.properties.WeirProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.client.ClientHttpRequestInterceptor;

/**
 * Auto-configuration of outgoing calls: with routes in {@code weir.client.routes}, a
 * {@link ClientGuard} of them, applied to every {@code RestClient} and {@code RestTemplate} built
 * from Spring Boot's {@code RestClient.Builder} and {@code RestTemplateBuilder}
 * (a {@link WeirClientHttpRequestInterceptor}, through a {@link RestClientCustomizer} and a
 * {@link RestTemplateCustomizer}) and every {@code WebClient} built from its {@code WebClient.Builder}
 * (a {@link WeirExchangeFilterFunction}, through a {@link WebClientCustomizer}), each when its module
 * ({@code spring-boot-restclient}, {@code spring-boot-webclient}) is present. The customizers run
 * last ({@link Ordered#LOWEST_PRECEDENCE}), so that the guard comes after the interceptors and
 * filters other customizers add: it sees the headers they set, and guards each attempt of a retrying
 * one. Clients built without these builders ({@code RestClient.create()}) are not guarded.
 *
 * <p>With {@code weir.client.honour-upstream} (the default), an {@link UpstreamPauses} keeps the
 * pauses servers ask for, enforced by a slot added to the auto-configured engine (a
 * {@link WeirBuilderCustomizer}).
 */
@AutoConfiguration(after = {WeirAutoConfiguration.class, WeirObservationAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = "weir.enabled", matchIfMissing = true)
@ConditionalOnClass(ClientHttpRequestInterceptor.class)
@ConditionalOnBean(Weir.class)
@ConditionalOnExpression("!'${weir.client.routes[0].url:}${weir.client.routes[0].resource:}'.isEmpty()")
public final class WeirClientAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "weir.client.honour-upstream", matchIfMissing = true)
  UpstreamPauses weirUpstreamPauses() {
    return new UpstreamPauses();
  }

  @Bean
  WeirBuilderCustomizer weirUpstreamPauseSlot(ObjectProvider<UpstreamPauses> pauses) {
    return builder -> pauses.ifAvailable(upstream -> builder.slot(upstream.slot()));
  }

  @Bean
  @ConditionalOnMissingBean
  ClientGuard weirClientGuard(Weir weir, WeirProperties properties, ObjectProvider<UpstreamPauses> pauses,
      ObjectProvider<RefusalObserver> observer) {
    return new ClientGuard(weir, ClientRoutes.of(properties), pauses.getIfAvailable(),
        observer.getIfAvailable(RefusalObserver::none), System::currentTimeMillis);
  }

  /** {@code RestClient} and {@code RestTemplate}, with {@code spring-boot-restclient}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RestClientCustomizer.class)
  static final class RestClients {

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    RestClientCustomizer weirRestClientCustomizer(ClientGuard guard) {
      WeirClientHttpRequestInterceptor interceptor = new WeirClientHttpRequestInterceptor(guard);
      return builder -> builder.requestInterceptor(interceptor);
    }

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    RestTemplateCustomizer weirRestTemplateCustomizer(ClientGuard guard) {
      WeirClientHttpRequestInterceptor interceptor = new WeirClientHttpRequestInterceptor(guard);
      return template -> template.getInterceptors().add(interceptor);
    }
  }

  /** {@code WebClient}, with {@code spring-boot-webclient}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.springframework.boot.webclient.WebClientCustomizer",
      "org.springframework.web.reactive.function.client.WebClient", "reactor.core.publisher.Mono"})
  static final class WebClients {

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    WebClientCustomizer weirWebClientCustomizer(ClientGuard guard) {
      WeirExchangeFilterFunction filter = new WeirExchangeFilterFunction(guard);
      return builder -> builder.filter(filter);
    }
  }
}
