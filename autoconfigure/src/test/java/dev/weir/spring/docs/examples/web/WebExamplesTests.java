package dev.weir.spring.docs.examples.web;

import dev.weir.spring.test.ManualTicker;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;

/**
 * The HTTP page's WebFlux examples together, over real HTTP: the API key's owner is the origin, the
 * report is built in the request's Weir context with that origin, and an authority rule on the
 * report's resource judges it.
 */
@SpringBootTest(classes = WebExamplesTests.App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
    "spring.main.web-application-type=reactive",
    "weir.authority[0].resource=report", "weir.authority[0].limit-app=partner"})
class WebExamplesTests {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import({OriginResolvers.Reactive.class, ReportController.class})
  static class App {
    @Bean
    ManualTicker ticker() {
      return new ManualTicker();
    }

    @Bean
    OriginResolvers.ApiKeys apiKeys() {
      return key -> key.equals("k-1") ? Mono.just("partner") : Mono.just("someone-else");
    }

    @Bean
    ReportController.Reports reports() {
      return origin -> "report for " + origin;
    }
  }

  @LocalServerPort
  int port;

  WebTestClient http;

  @BeforeEach
  void bindToTheServer() {
    http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
  }

  @Test
  void theReportRunsInTheRequestsContextWithTheKeysOwnerAsOrigin() {
    http.get().uri("/report").header("X-Api-Key", "k-1").exchange()
        .expectStatus().isOk().expectBody(String.class).isEqualTo("report for partner");
    http.get().uri("/report").header("X-Api-Key", "k-2").exchange()
        .expectStatus().isEqualTo(HttpStatus.FORBIDDEN);
    // no key, no origin: not on the allow list
    http.get().uri("/report").exchange().expectStatus().isEqualTo(HttpStatus.FORBIDDEN);
  }
}
