package dev.weir.spring.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator applies the {@code @RateLimited} advisor, also without AspectJ
 * and with {@code spring.aop.auto=false} (as {@code @EnableTransactionManagement} does). It
 * follows {@code spring.aop.proxy-target-class} (default true: class-based proxies); a creator
 * already registered (Spring Boot's AspectJ one) is kept.
 */
final class RateLimitedProxyRegistrar implements ImportBeanDefinitionRegistrar {

  private final Environment environment;

  RateLimitedProxyRegistrar(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    if (environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
      AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
    }
  }
}
