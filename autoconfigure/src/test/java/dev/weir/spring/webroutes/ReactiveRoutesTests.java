package dev.weir.spring.webroutes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.test.LocalHttp;
import dev.weir.spring.test.ManualTicker;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/** Routes in a WebFlux application over real HTTP (Reactor Netty): keys, headers, origins, failures. */
@SpringBootTest(classes = ReactiveRoutesApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=routes-webflux-test")
@DirtiesContext
class ReactiveRoutesTests {

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  ManualTicker ticker;

  @Test
  void eachApiKeyHasItsOwnCountWithHeaders() throws Exception {
    for (String key : new String[] {"a", "b"}) {
      HttpResponse<String> first = LocalHttp.get(port, "/rx/api/ping", "X-Api-Key", key);
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.body()).isEqualTo("pong");
      assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"param-flow-0\";q=2;w=10");
      assertThat(first.headers().firstValue("RateLimit")).hasValue("\"param-flow-0\";r=1;t=5");
      assertThat(LocalHttp.get(port, "/rx/api/ping", "X-Api-Key", key).statusCode()).isEqualTo(200);
    }
    HttpResponse<String> refused = LocalHttp.get(port, "/rx/api/ping", "X-Api-Key", "a");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("\"resource\":\"rx.api\"");
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("5");
    assertThat(refused.headers().firstValue("RateLimit")).as("t is the Retry-After")
        .hasValue("\"param-flow-0\";r=0;t=5");
    ticker.advance(Duration.ofSeconds(5));
    assertThat(LocalHttp.get(port, "/rx/api/ping", "X-Api-Key", "a").statusCode()).isEqualTo(200);
    ticker.advance(Duration.ofSeconds(30));
  }

  /** WebFlux answers a HEAD with the GET handler too: a route listing GET takes HEAD, and the handler does not run. */
  @Test
  void aGetRouteCountsHeadAHeadRouteLeavesGetAlone() throws Exception {
    ticker.advance(Duration.ofSeconds(60));
    int handled = ReactiveRoutesApplication.Endpoints.reads.get();
    assertThat(LocalHttp.get(port, "/rx/reads/item").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.send(port, "HEAD", "/rx/reads/item").statusCode()).as("HEAD takes the second permit")
        .isEqualTo(200);
    assertThat(ReactiveRoutesApplication.Endpoints.reads.get()).as("a HEAD runs the GET handler").isEqualTo(handled + 2);
    for (int i = 0; i < 5; i++) {
      assertThat(LocalHttp.send(port, "HEAD", "/rx/reads/item").statusCode()).isEqualTo(429);
    }
    assertThat(LocalHttp.get(port, "/rx/reads/item").statusCode()).isEqualTo(429);
    assertThat(ReactiveRoutesApplication.Endpoints.reads.get()).as("no refused request ran it").isEqualTo(handled + 2);

    for (int i = 0; i < 3; i++) {
      HttpResponse<String> read = LocalHttp.get(port, "/rx/heads/item");
      assertThat(read.statusCode()).as("GET is not HEAD").isEqualTo(200);
      assertThat(read.headers().firstValue("RateLimit")).isEmpty();
    }
    assertThat(LocalHttp.send(port, "HEAD", "/rx/heads/item").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.send(port, "HEAD", "/rx/heads/item").statusCode()).isEqualTo(429);

    // rx.api lists no methods: HEAD and DELETE count with GET
    assertThat(LocalHttp.send(port, "HEAD", "/rx/api/ping", "X-Api-Key", "mixed").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.send(port, "DELETE", "/rx/api/ping", "X-Api-Key", "mixed").statusCode()).isNotEqualTo(429);
    assertThat(LocalHttp.get(port, "/rx/api/ping", "X-Api-Key", "mixed").statusCode()).isEqualTo(429);
    ticker.advance(Duration.ofSeconds(60));
  }

  @Test
  void theRouteSeesTheRequestsOrigin() throws Exception {
    ticker.advance(Duration.ofSeconds(30));
    assertThat(LocalHttp.get(port, "/rx/partners/list", "X-Caller", "partner").statusCode()).isEqualTo(200);
    assertThat(LocalHttp.get(port, "/rx/partners/list", "X-Caller", "partner").statusCode()).isEqualTo(429);
    assertThat(LocalHttp.get(port, "/rx/partners/list", "X-Caller", "someone").statusCode())
        .as("limit-app partner only").isEqualTo(200);
    ticker.advance(Duration.ofSeconds(30));
  }

  @Test
  void aFailedRequestIsAFailedCallAndNothingStaysInside() throws Exception {
    ticker.advance(Duration.ofSeconds(30));
    long failed = weir.statistics("rx.api").totalFailed();
    assertThat(LocalHttp.get(port, "/rx/api/fail", "X-Api-Key", "f").statusCode()).isEqualTo(500);
    // The call ends when the chain's signal has passed (doFinally), which may be just after the
    // client has its answer: wait for it, boundedly.
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while ((weir.statistics("rx.api").activeCalls() != 0 || weir.statistics("rx.api").totalFailed() != failed + 1)
        && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(weir.statistics("rx.api").totalFailed()).isEqualTo(failed + 1);
    assertThat(weir.statistics("rx.api").activeCalls()).isZero();
    ticker.advance(Duration.ofSeconds(30));
  }

  @Test
  void aRequestsCallEndsBeforeItsAnswerReachesTheClient() throws Exception {
    // one request at a time (a threads limit of 1), each made after the last one's answer arrived:
    // none may find the last one's call still in flight
    int requests = 300;
    int refused = 0;
    for (int i = 0; i < requests; i++) {
      if (LocalHttp.get(port, "/rx/serial/ping").statusCode() != 200) {
        refused++;
      }
    }
    assertThat(refused).as("requests of %d refused though the one before had its answer", requests).isZero();
    assertThat(weir.statistics("rx.serial").totalPassed()).isEqualTo(requests);
  }
}
