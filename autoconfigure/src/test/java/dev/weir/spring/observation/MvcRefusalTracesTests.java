package dev.weir.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.LocalHttp;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
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
 * Refusals in traces, Spring MVC, over real HTTP: a refusal of a route, of an {@code @RateLimited}
 * method and of an outgoing {@code RestClient} call is the event {@code weir.refused} of the
 * observation it happened in (the request's, or the client call's), with {@code weir.resource} and
 * {@code weir.rule}, in Micrometer's test registry and as an OpenTelemetry span event and attributes
 * through the tracing bridge; an admitted request adds neither.
 */
@SpringBootTest(classes = ObservedMvcApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=observed-mvc-test")
@DirtiesContext
@Timeout(60)
class MvcRefusalTracesTests {

  private static final AttributeKey<String> RESOURCE = AttributeKey.stringKey("weir.resource");
  private static final AttributeKey<String> RULE = AttributeKey.stringKey("weir.rule");

  @LocalServerPort
  int port;

  @Autowired
  RecordedObservations recorded;

  @Autowired
  InMemorySpanExporter spans;

  @BeforeEach
  void forget() {
    recorded.clear();
    spans.reset();
  }

  /** As in {@code WebFluxRefusalObservationTests}: this test's request observation stops before the next test begins. */
  @AfterEach
  void awaitTheRequestsObservation() throws InterruptedException {
    recorded.awaitStopped(o -> o.observation().equals("http.server.requests"));
  }

  @Test
  void aRouteRefusalIsAnEventOfTheRequestsObservationAndSpan() throws Exception {
    assertThat(LocalHttp.get(port, "/api/limited").statusCode()).isEqualTo(429);
    assertThat(recorded.events()).containsExactly(
        new RecordedObservations.Event("http.server.requests", "weir.refused", "api", "flow"));
    SpanData span = awaitSpan(s -> path(s).equals("/api/limited"));
    assertThat(span.getEvents()).extracting(EventData::getName).containsExactly("weir.refused");
    assertThat(span.getEvents().get(0).getEpochNanos()).as("the event's time, in whole milliseconds")
        .isBetween(span.getStartEpochNanos() - 1_000_000, span.getEndEpochNanos());
    assertThat(span.getAttributes().get(RESOURCE)).isEqualTo("api");
    assertThat(span.getAttributes().get(RULE)).isEqualTo("flow");
  }

  @Test
  void aRefusalOfAnAnnotatedMethodIsAnEventOfTheRequestsObservation() throws Exception {
    assertThat(LocalHttp.get(port, "/orders").statusCode()).isEqualTo(429);
    assertThat(recorded.events()).containsExactly(
        new RecordedObservations.Event("http.server.requests", "weir.refused", "orders", "flow"));
    SpanData span = awaitSpan(s -> path(s).equals("/orders"));
    assertThat(span.getEvents()).extracting(EventData::getName).containsExactly("weir.refused");
    assertThat(span.getAttributes().get(RESOURCE)).isEqualTo("orders");
  }

  @Test
  void aRefusedOutgoingCallIsAnEventOfItsClientSpanInTheRequestsTrace() throws Exception {
    assertThat(LocalHttp.get(port, "/checkout").statusCode()).isEqualTo(429);
    assertThat(recorded.events()).containsExactly(
        new RecordedObservations.Event("http.client.requests", "weir.refused", "partner", "flow"));
    SpanData client = awaitSpan(s -> path(s).equals("http://partner.invalid/pay"));
    SpanData server = awaitSpan(s -> path(s).equals("/checkout"));
    assertThat(client.getEvents()).extracting(EventData::getName).as("and the client's own exception event")
        .containsExactly("weir.refused", "exception");
    assertThat(client.getAttributes().get(RESOURCE)).isEqualTo("partner");
    assertThat(client.getAttributes().get(RULE)).isEqualTo("flow");
    assertThat(client.getParentSpanId()).as("the client call is a child of the request").isEqualTo(server.getSpanId());
    assertThat(server.getEvents()).as("the request's own span").isEmpty();
    assertThat(server.getAttributes().get(RESOURCE)).isNull();
  }

  @Test
  void anAdmittedRequestAddsNothing() throws Exception {
    assertThat(LocalHttp.get(port, "/open/fine").body()).isEqualTo("fine");
    assertThat(recorded.awaitStopped(o -> o.observation().equals("http.server.requests")))
        .isEqualTo(new RecordedObservations.Stopped("http.server.requests", null, null));
    SpanData span = awaitSpan(s -> path(s).equals("/open/fine"));
    assertThat(span.getEvents()).isEmpty();
    assertThat(span.getAttributes().get(RESOURCE)).isNull();
    assertThat(recorded.events()).isEmpty();
  }

  /** The span's {@code http.url} (Micrometer's high-cardinality key value): the request's path, or the client's URL. */
  private static String path(SpanData span) {
    return String.valueOf(span.getAttributes().get(AttributeKey.stringKey("http.url")));
  }

  private SpanData awaitSpan(Predicate<SpanData> matches) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      List<SpanData> finished = spans.getFinishedSpanItems();
      for (SpanData span : finished) {
        if (matches.test(span)) {
          return span;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no span matched; finished: " + spans.getFinishedSpanItems());
  }
}
