package dev.weir.spring.routing;

import dev.weir.spring.test.ManualTicker;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** The application of the routing tests: the services, and a ticker the tests drive. */
@SpringBootConfiguration
@EnableAutoConfiguration
class RoutingTestApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  BlockHandlersService blockHandlersService() {
    return new BlockHandlersService();
  }

  @Bean
  FallbacksService fallbacksService() {
    return new FallbacksService();
  }

  @Bean
  TypeLevelService typeLevelService() {
    return new TypeLevelService();
  }

  @Bean
  LimitsService limitsService() {
    return new LimitsService();
  }

  @Bean
  InheritedService inheritedService() {
    return new InheritedService();
  }

  @Bean
  ContractService contractService() {
    return new ContractService();
  }
}
