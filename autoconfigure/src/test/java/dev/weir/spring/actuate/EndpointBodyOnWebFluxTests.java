package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.web.server.WebHandler;

/** {@link EndpointBodyContract} on Spring WebFlux (Reactor Netty, random port). */
@SpringBootTest(classes = ReactiveRuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=rule-write-webflux-test")
class EndpointBodyOnWebFluxTests extends EndpointBodyContract {

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  ApplicationContext context;

  @Override
  int port() {
    return port;
  }

  @Override
  Weir weir() {
    return weir;
  }

  @Test
  void itIsAReactiveServer() {
    assertThat(context.getBeanNamesForType(WebHandler.class)).isNotEmpty();
    assertThat(context.getBeansOfType(WeirEndpointWebFilter.class)).hasSize(1);
  }
}
