package dev.weir.spring.client;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.RuleKind;
import dev.weir.spring.observation.RecordedObservations;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A refused outgoing call is the event {@code weir.refused} of its client observation
 * ({@code http.client.requests}, which Spring Boot's builders observe), with the key values
 * {@code weir.resource} and {@code weir.rule}; an admitted one adds nothing to it.
 */
@Timeout(60)
class ClientRefusalObservationTests {

  PartnerServer server;

  @BeforeEach
  void startServer() throws IOException {
    server = PartnerServer.start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Configuration(proxyBeanMethods = false)
  static class Observed {
    @Bean
    RecordedObservations recordedObservations() {
      return new RecordedObservations();
    }

    @Bean
    TestObservationRegistry observationRegistry(RecordedObservations recorded) {
      return recorded.registry();
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aRefusalIsAnEventOfTheClientObservationAndAnAdmittedCallAddsNothing(Client client) {
    new ApplicationContextRunner().withUserConfiguration(ClientApp.class, Observed.class)
        .withPropertyValues("weir.client.routes[0].resource=partner",
            "weir.client.routes[0].url=" + server.url("/partner/**"), "weir.client.routes[1].resource=open",
            "weir.client.routes[1].url=" + server.url("/open/**"), "weir.flow[0].resource=partner",
            "weir.flow[0].count=0", "spring.reactor.netty.shutdown-quiet-period=0s")
        .run(context -> {
          RecordedObservations recorded = context.getBean(RecordedObservations.class);
          assertRefusedBy(RuleKind.FLOW, () -> client.get(context, server.url(""), "/partner/orders"));
          assertThat(recorded.events()).containsExactly(new RecordedObservations.Event("http.client.requests",
              "weir.refused", "partner", "flow"));
          assertThat(recorded.awaitStopped(o -> o.observation().equals("http.client.requests")))
              .isEqualTo(new RecordedObservations.Stopped("http.client.requests", "partner", "flow"));
          assertThat(server.hits("/partner/orders")).isZero();

          recorded.clear();
          assertThat(client.get(context, server.url(""), "/open/orders")).isEqualTo("ok");
          assertThat(recorded.awaitStopped(o -> o.observation().equals("http.client.requests")))
              .as("an admitted call's observation").isEqualTo(new RecordedObservations.Stopped("http.client.requests",
                  null, null));
          assertThat(recorded.events()).isEmpty();
        });
  }
}
