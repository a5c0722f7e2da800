package dev.weir.spring.criticality;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Criticality;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The criticality of a WebFlux request's calls, as the engine sees it, over real HTTP on a random
 * port: the {@code X-Criticality} claim travels in the Reactor context to routes and to guarded
 * {@code Mono}/{@code Flux} subscribed on other threads, lowering never raising; a
 * {@code Criticality} written into the chain wins; hostile values are ignored.
 */
@SpringBootTest(classes = CriticalityWebFluxApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.web-application-type=reactive", "weir.web.criticality-header=X-Criticality",
        "weir.web.routes[0].resource=rx.route", "weir.web.routes[0].path=/route/**"})
@DirtiesContext // closed after this class (its Reactor Netty resources are its own: OwnReactorResources)
@Timeout(60)
class CriticalityWebFluxTests {


  @LocalServerPort
  int port;

  @Autowired
  SeenCriticality seen;

  @BeforeEach
  void forget() {
    seen.clear();
  }

  private String get(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(10));
    if (headers.length > 0) {
      request.headers(headers);
    }
    HttpResponse<String> response;
    try {
      // A client (so a connection) per request: on a connection kept alive from the request before,
      // a request here got no answer about one run in three (always the third hostile value, the
      // server's threads idle, nothing of it in Weir's filters; cause not found, see docs/criticality.md's
      // known gaps); on a connection of its own, none in six runs.
      response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
          .send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException timedOut) {
      StringBuilder dump = new StringBuilder();
      Thread.getAllStackTraces().forEach((thread, stack) -> {
        dump.append('\n').append(thread.getName()).append(' ').append(thread.getState());
        for (StackTraceElement frame : stack) {
          dump.append("\n    at ").append(frame);
        }
      });
      System.err.println("THREADS AT THE TIMEOUT" + dump);
      throw new AssertionError("no answer to " + path + " with " + Arrays.toString(headers) + " in 10 s", timedOut);
    }
    assertThat(response.statusCode()).as("status of %s", path).isEqualTo(200);
    return response.body();
  }

  private Criticality next(String resource) throws InterruptedException {
    return seen.next(resource).criticality();
  }

  @Test
  void withoutAHeaderEachPublisherHasItsAnnotationsCriticality() throws Exception {
    assertThat(get("/calls")).isEqualTo("plainbatchcheckout");
    get("/route/ping");
    SeenCriticality.Seen plain = seen.next("rx.plain");
    assertThat(plain.criticality()).isEqualTo(Criticality.CRITICAL);
    assertThat(plain.thread()).startsWith("crit-elastic");
    assertThat(next("rx.batch")).isEqualTo(Criticality.SHEDDABLE);
    assertThat(next("rx.checkout")).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThat(next("rx.route")).isEqualTo(Criticality.CRITICAL);
  }

  @Test
  void theClaimTravelsInTheReactorContextAndLowers() throws Exception {
    get("/calls", "X-Criticality", "SHEDDABLE_PLUS");
    get("/route/ping", "X-Criticality", "sheddable");
    SeenCriticality.Seen plain = seen.next("rx.plain");
    assertThat(plain.criticality()).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(plain.thread()).as("subscribed on another scheduler's thread").startsWith("crit-elastic");
    assertThat(next("rx.batch")).isEqualTo(Criticality.SHEDDABLE);
    assertThat(next("rx.checkout")).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(next("rx.route")).isEqualTo(Criticality.SHEDDABLE);
  }

  @Test
  void theClaimNeverRaises() throws Exception {
    get("/calls", "X-Criticality", "CRITICAL_PLUS");
    get("/route/ping", "X-Criticality", "CRITICAL_PLUS");
    assertThat(next("rx.plain")).isEqualTo(Criticality.CRITICAL);
    assertThat(next("rx.batch")).isEqualTo(Criticality.SHEDDABLE);
    assertThat(next("rx.checkout")).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThat(next("rx.route")).isEqualTo(Criticality.CRITICAL);
  }

  @Test
  void hostileHeadersAreNoClaimAndNeverFailTheRequest() throws Exception {
    for (String[] headers : HostileClaims.HEADERS) {
      assertThat(get("/calls", headers)).isEqualTo("plainbatchcheckout");
      get("/route/ping", headers);
      assertThat(next("rx.plain")).as("with %s", Arrays.toString(headers)).isEqualTo(Criticality.CRITICAL);
      assertThat(next("rx.batch")).isEqualTo(Criticality.SHEDDABLE);
      assertThat(next("rx.checkout")).isEqualTo(Criticality.CRITICAL_PLUS);
      assertThat(next("rx.route")).as("route with %s", Arrays.toString(headers)).isEqualTo(Criticality.CRITICAL);
    }
  }

  @Test
  void aCriticalityWrittenIntoTheChainWinsOverTheAnnotationAndTheClaim() throws Exception {
    get("/written");
    assertThat(next("rx.plain")).isEqualTo(Criticality.SHEDDABLE_PLUS);
    get("/written", "X-Criticality", "SHEDDABLE");
    assertThat(next("rx.plain")).isEqualTo(Criticality.SHEDDABLE_PLUS);
  }
}
