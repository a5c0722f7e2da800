package dev.weir.spring.criticality;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Criticality;
import dev.weir.spring.criticality.SeenCriticality.Seen;
import dev.weir.spring.test.LocalHttp;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The criticality of a Spring MVC request's calls, as the engine sees it, over real HTTP on a random
 * port: {@code @RateLimited(criticality)}, lowered (never raised) by the request's
 * {@code X-Criticality} header on routes, guarded methods and {@code @Async} work; a context's
 * criticality wins; a header that names no criticality is ignored and never fails the request.
 */
@SpringBootTest(classes = CriticalityMvcApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {"weir.web.criticality-header=X-Criticality", "weir.web.routes[0].resource=route",
        "weir.web.routes[0].path=/route/**"})
@Timeout(60)
class CriticalityMvcTests {

  @LocalServerPort
  int port;

  @Autowired
  SeenCriticality seen;

  @BeforeEach
  void forget() {
    seen.clear();
  }

  private String get(String path, String... headers) throws Exception {
    HttpResponse<String> response = LocalHttp.get(port, path, headers);
    assertThat(response.statusCode()).as("status of %s", path).isEqualTo(200);
    return response.body();
  }

  private Criticality next(String resource) throws InterruptedException {
    return seen.next(resource).criticality();
  }

  @Test
  void withoutAHeaderEachCallHasItsAnnotationsCriticalityAndARouteIsCritical() throws Exception {
    get("/calls");
    get("/route/ping");
    assertThat(next("plain")).isEqualTo(Criticality.CRITICAL);
    assertThat(next("batch")).isEqualTo(Criticality.SHEDDABLE);
    assertThat(next("checkout")).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThat(next("route")).isEqualTo(Criticality.CRITICAL);
  }

  @Test
  void aHeaderLowersEveryCallOfTheRequestThatIsAboveIt() throws Exception {
    get("/calls", "X-Criticality", "sheddable-plus");
    get("/route/ping", "X-Criticality", " SHEDDABLE ");
    assertThat(next("plain")).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(next("batch")).as("already lower than the claim").isEqualTo(Criticality.SHEDDABLE);
    assertThat(next("checkout")).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(next("route")).isEqualTo(Criticality.SHEDDABLE);
  }

  @Test
  void aHeaderNeverRaisesACall() throws Exception {
    get("/calls", "X-Criticality", "CRITICAL_PLUS");
    get("/route/ping", "X-Criticality", "critical_plus");
    assertThat(next("plain")).isEqualTo(Criticality.CRITICAL);
    assertThat(next("batch")).isEqualTo(Criticality.SHEDDABLE);
    assertThat(next("checkout")).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThat(next("route")).isEqualTo(Criticality.CRITICAL);
  }

  @Test
  void hostileHeadersAreNoClaimAndNeverFailTheRequest() throws Exception {
    for (String[] headers : HostileClaims.HEADERS) {
      assertThat(get("/calls", headers)).isEqualTo("plainbatchcheckout");
      get("/route/ping", headers);
      assertThat(next("plain")).as("plain with %s", java.util.Arrays.toString(headers)).isEqualTo(Criticality.CRITICAL);
      assertThat(next("batch")).isEqualTo(Criticality.SHEDDABLE);
      assertThat(next("checkout")).as("checkout with %s", java.util.Arrays.toString(headers)).isEqualTo(Criticality.CRITICAL_PLUS);
      assertThat(next("route")).as("route with %s", java.util.Arrays.toString(headers)).isEqualTo(Criticality.CRITICAL);
    }
  }

  @Test
  void aContextTheApplicationEntersWinsOverTheHeader() throws Exception {
    get("/in-context", "X-Criticality", "SHEDDABLE");
    assertThat(next("plain")).isEqualTo(Criticality.CRITICAL_PLUS);
  }

  @Test
  void asyncMethodsKeepTheCallersClaim() throws Exception {
    String threads = get("/async", "X-Criticality", "SHEDDABLE_PLUS");
    Seen asyncWork = seen.next("asyncWork");
    Seen plain = seen.next("plain");
    assertThat(asyncWork.criticality()).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(plain.criticality()).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(plain.thread()).as("the guarded call made on the executor's thread").startsWith("task-");
    assertThat(threads).startsWith("task-");
  }

  @Test
  void asyncMethodsKeepTheCallersContextCriticality() throws Exception {
    get("/async-in-context");
    Seen plain = seen.next("plain");
    assertThat(plain.criticality()).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(plain.thread()).startsWith("task-");
  }

  @Test
  void asyncWorkWithoutAClaimHasItsOwnCriticality() throws Exception {
    get("/async");
    assertThat(next("asyncWork")).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThat(next("plain")).isEqualTo(Criticality.CRITICAL);
  }
}
