package dev.weir.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.LocalHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Refusals in observations, WebFlux, over real HTTP: the observation of a reactive request and of a
 * {@code WebClient} call is found in the Reactor context, where thread-locals would miss it. A
 * refusal of a route, of an {@code @RateLimited} {@code Mono} and of an outgoing call is the event
 * {@code weir.refused} of the observation it happened in; an admitted request adds nothing.
 */
@SpringBootTest(classes = ObservedWebFluxApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=observed-webflux-test")
@DirtiesContext
@Timeout(60)
class WebFluxRefusalObservationTests {

  @LocalServerPort
  int port;

  @Autowired
  RecordedObservations recorded;

  @BeforeEach
  void forget() {
    recorded.clear();
  }

  /**
   * Each test makes one request, whose server observation stops after the client has its answer: it
   * is waited for here, or it would be recorded after the next test's {@link #forget()} and be
   * taken for that test's (a route refusal found a stopped request without a resource: the WebClient
   * test's, run before it).
   */
  @AfterEach
  void awaitTheRequestsObservation() throws InterruptedException {
    recorded.awaitStopped(o -> o.observation().equals("http.server.requests"));
  }

  @Test
  void aRouteRefusalIsAnEventOfTheRequestsObservation() throws Exception {
    assertThat(LocalHttp.get(port, "/api/limited").statusCode()).isEqualTo(429);
    assertThat(recorded.events()).containsExactly(
        new RecordedObservations.Event("http.server.requests", "weir.refused", "api", "flow"));
    assertThat(recorded.awaitStopped(o -> o.observation().equals("http.server.requests")))
        .isEqualTo(new RecordedObservations.Stopped("http.server.requests", "api", "flow"));
  }

  @Test
  void aRefusalOfAnAnnotatedMonoIsAnEventOfTheRequestsObservation() throws Exception {
    assertThat(LocalHttp.get(port, "/orders").statusCode()).isEqualTo(429);
    assertThat(recorded.events()).containsExactly(
        new RecordedObservations.Event("http.server.requests", "weir.refused", "orders", "flow"));
  }

  @Test
  void aRefusedWebClientCallIsAnEventOfItsClientObservation() throws Exception {
    assertThat(LocalHttp.get(port, "/checkout").statusCode()).isEqualTo(429);
    assertThat(recorded.events()).containsExactly(
        new RecordedObservations.Event("http.client.requests", "weir.refused", "partner", "flow"));
  }

  @Test
  void anAdmittedRequestAddsNothing() throws Exception {
    assertThat(LocalHttp.get(port, "/open/fine").body()).isEqualTo("fine");
    assertThat(recorded.awaitStopped(o -> o.observation().equals("http.server.requests")))
        .isEqualTo(new RecordedObservations.Stopped("http.server.requests", null, null));
    assertThat(recorded.events()).isEmpty();
  }
}
