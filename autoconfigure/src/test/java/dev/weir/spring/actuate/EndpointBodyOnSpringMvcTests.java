package dev.weir.spring.actuate;

import dev.weir.Weir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/** {@link EndpointBodyContract} on Spring MVC (Tomcat, random port). */
@SpringBootTest(classes = RuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {"spring.config.name=rule-write-test", "management.endpoint.weir.access=unrestricted"})
class EndpointBodyOnSpringMvcTests extends EndpointBodyContract {

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Override
  int port() {
    return port;
  }

  @Override
  Weir weir() {
    return weir;
  }
}
