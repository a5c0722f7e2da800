package dev.weir.spring.test;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Test-only auto-configuration: every application context of this module's tests gets Reactor
 * Netty event loops and connection pools of its own instead of the JVM-wide global ones.
 *
 * <p>Why: a {@code ReactorResourceFactory} on the global resources disposes them when its context
 * closes, and Spring's test context cache closes contexts whenever it evicts one or a class is
 * {@code @DirtiesContext}: the WebFlux servers and WebClients of every other cached context then
 * lose their event loops, and their next request gets no answer (seen as 60 s timeouts in
 * {@code EndpointBodyOnWebFluxTests} and {@code CriticalityWebFluxTests}, depending on the order
 * the full run met the classes). An application has one context per JVM and is not affected.
 */
@AutoConfiguration
@ConditionalOnClass(ReactorResourceFactory.class)
public final class OwnReactorResources {

  @Bean
  static BeanPostProcessor ownReactorResources() {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof ReactorResourceFactory factory) {
          factory.setUseGlobalResources(false);
        }
        return bean;
      }
    };
  }
}
