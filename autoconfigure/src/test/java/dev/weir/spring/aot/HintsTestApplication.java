package dev.weir.spring.aot;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The user's part of the application processed ahead of time: guarded beans behind CGLIB proxies. */
@Configuration(proxyBeanMethods = false)
class HintsTestApplication {

  @Bean
  HintedService hintedService() {
    return new HintedService();
  }

  @Bean
  TypeLevelService typeLevelService() {
    return new TypeLevelService();
  }
}
