package dev.weir.spring.aot;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** An application whose guarded bean gets a JDK proxy (with {@code spring.aop.proxy-target-class=false}). */
@Configuration(proxyBeanMethods = false)
class JdkProxyApplication {

  @Bean
  InterfacedService interfacedService() {
    return new InterfacedService();
  }
}
