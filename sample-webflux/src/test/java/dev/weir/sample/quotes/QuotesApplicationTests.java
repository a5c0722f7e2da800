package dev.weir.sample.quotes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The sample over real HTTP (Reactor Netty, random port), with time driven by the test. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureWeirTest
class QuotesApplicationTests {

  @LocalServerPort int port;
  @Autowired DrivenTicker ticker;

  WebTestClient http;

  @BeforeEach
  void bindToTheServer() {
    http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
  }

  @Test
  void theThirdQuoteInASecondIsA429Problem() {
    http.get().uri("/quotes/acme").exchange().expectStatus().isOk()
        .expectBody().jsonPath("$.symbol").isEqualTo("ACME");
    http.get().uri("/quotes/acme").exchange().expectStatus().isOk();
    Map<String, Object> problem = http.get().uri("/quotes/acme").exchange()
        .expectStatus().isEqualTo(429)
        .expectHeader().valueEquals("Retry-After", "1")
        .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .expectBody(new ParameterizedTypeReference<Map<String, Object>>() {}).returnResult().getResponseBody();
    assertThat(problem).containsOnly(Map.entry("type", "urn:weir:block:flow"),
        Map.entry("title", "Too Many Requests"), Map.entry("status", 429),
        Map.entry("detail", "Too many calls of 'quote'. Retry after 1 second."),
        Map.entry("instance", "/quotes/acme"), Map.entry("resource", "quote"));
    ticker.advance(Duration.ofSeconds(1));
    http.get().uri("/quotes/acme").exchange().expectStatus().isOk();
  }

  @Test
  void thePortfolioIsForTheDeskOnly() {
    http.get().uri("/portfolio").header("X-Caller", "desk").exchange()
        .expectStatus().isOk().expectBody().jsonPath("$[0]").isEqualTo("ACME");
    http.get().uri("/portfolio").header("X-Caller", "intern").exchange()
        .expectStatus().isForbidden()
        .expectHeader().doesNotExist("Retry-After")
        .expectBody().jsonPath("$.type").isEqualTo("urn:weir:block:authority")
        .jsonPath("$.resource").isEqualTo("portfolio");
    http.get().uri("/portfolio").exchange() // no X-Caller: no origin
        .expectStatus().isForbidden()
        .expectBody().jsonPath("$.type").isEqualTo("urn:weir:block:authority");
  }
}
