package dev.weir.spring.webroutes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.test.LocalHttp;
import dev.weir.spring.test.ManualTicker;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A WebFlux route's circuit breaker over real HTTP (Reactor Netty): a client that goes away while
 * its request is the half-open probe says nothing about the resource. The probe is handed back and
 * the next request probes; before, the disconnect closed the breaker as if the request had succeeded.
 */
@SpringBootTest(classes = ReactiveRouteBreakerApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=routes-breaker-webflux-test")
@DirtiesContext
@Timeout(30)
class ReactiveRouteBreakerTests {

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  ManualTicker ticker;

  private ResourceStatistics stats() {
    return weir.statistics("rx.breaker");
  }

  /** Waits, boundedly, for what the server does after the client has its answer or has gone. */
  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited for: " + what).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void aClientThatGoesAwayWhileItsRequestProbesHandsTheProbeBack() throws Exception {
    assertThat(LocalHttp.get(port, "/rx/breaker/fail").statusCode()).isEqualTo(500);
    await("the failure counted", () -> stats() != null && stats().circuitState() == CircuitState.OPEN);
    assertThat(LocalHttp.get(port, "/rx/breaker/ok").statusCode()).as("refused while open").isEqualTo(503);
    ticker.advance(Duration.ofSeconds(5));

    try (Socket client = new Socket("localhost", port)) {
      OutputStream out = client.getOutputStream();
      out.write(("GET /rx/breaker/hang HTTP/1.1\r\nHost: localhost:" + port + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      await("the hanging request admitted as the probe", () -> stats().activeCalls() == 1);
      assertThat(stats().circuitState()).isEqualTo(CircuitState.HALF_OPEN);
    } // the client goes away without an answer
    await("the abandoned request released", () -> stats().activeCalls() == 0);
    assertThat(stats().circuitState()).as("a client that went away proves nothing").isEqualTo(CircuitState.OPEN);
    assertThat(stats().totalFailed()).isEqualTo(1);

    assertThat(LocalHttp.get(port, "/rx/breaker/ok").statusCode()).as("the next request probes at once")
        .isEqualTo(200);
    await("the probe's success", () -> stats().circuitState() == CircuitState.CLOSED);
  }
}
