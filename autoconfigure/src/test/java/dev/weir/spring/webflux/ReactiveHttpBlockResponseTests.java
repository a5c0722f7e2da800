package dev.weir.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.server.WebHandler;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP answers to refusals in a WebFlux application, over real HTTP (Reactor Netty) on a random
 * port. The endpoints call the engine when their {@code Mono} is subscribed and let a refusal escape
 * as the error signal.
 */
@SpringBootTest(classes = ReactiveHttpTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=webflux-test")
class ReactiveHttpBlockResponseTests {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  ApplicationContext context;

  WebTestClient http;

  @BeforeEach
  void bindToTheServer() {
    http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> json(EntityExchangeResult<byte[]> result) {
    return JSON.readValue(result.getResponseBody(), Map.class);
  }

  @Test
  void itIsAReactiveServer() {
    assertThat(context.getBeanNamesForType(WebHandler.class)).isNotEmpty();
    assertThat(context.getBeansOfType(BlockWebExceptionHandler.class)).hasSize(1);
  }

  @Test
  void flowRefusalIsA429ProblemWithRetryAfter() {
    EntityExchangeResult<byte[]> result = http.get().uri("/limited").exchange()
        .expectStatus().isEqualTo(429)
        .expectHeader().valueEquals("Retry-After", "1")
        .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .expectBody().returnResult();
    assertThat(json(result)).containsOnly(Map.entry("type", "urn:weir:block:flow"),
        Map.entry("title", "Too Many Requests"), Map.entry("status", 429),
        Map.entry("detail", "Too many calls of 'flux.limited'. Retry after 1 second."),
        Map.entry("instance", "/limited"), Map.entry("resource", "flux.limited"));
  }

  @Test
  void degradeRefusalIsA503WithRetryAfter() {
    http.get().uri("/degrade").exchange().expectStatus().isOk();
    try (Entry entry = weir.entry("flux.degrade")) {
      entry.recordError(new IllegalStateException("failed call"));  // trips the breaker (error-count 0)
    }
    EntityExchangeResult<byte[]> result = http.get().uri("/degrade").exchange()
        .expectStatus().isEqualTo(503)
        .expectHeader().valueEquals("Retry-After", "3")      // open-duration 3s, the test's clock stands still
        .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .expectBody().returnResult();
    assertThat(json(result)).containsEntry("type", "urn:weir:block:degrade").containsEntry("status", 503)
        .containsEntry("title", "Service Unavailable").containsEntry("resource", "flux.degrade")
        .containsEntry("instance", "/degrade");
  }

  @Test
  void authorityRefusalByOriginHeaderIsA403WithoutRetryAfter() {
    EntityExchangeResult<byte[]> result = http.get().uri("/admin").header("X-Caller", "guest").exchange()
        .expectStatus().isForbidden()
        .expectHeader().doesNotExist("Retry-After")
        .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .expectBody().returnResult();
    assertThat(json(result)).containsEntry("type", "urn:weir:block:authority").containsEntry("status", 403)
        .containsEntry("title", "Forbidden").containsEntry("resource", "flux.admin")
        .containsEntry("detail", "This caller may not call 'flux.admin'.");
  }

  @Test
  void anAllowedOriginPasses() {
    http.get().uri("/admin").header("X-Caller", "ops").exchange()
        .expectStatus().isOk()
        .expectBody(String.class).isEqualTo("flux.admin in weir_web_context from 'ops'");
    // a call without an origin is not on the allow list
    http.get().uri("/admin").exchange()
        .expectStatus().isForbidden()
        .expectBody().jsonPath("$.type").isEqualTo("urn:weir:block:authority");
  }

  @Test
  void theReactorContextCarriesTheWebContextAndTheOrigin() {
    http.get().uri("/context").header("X-Caller", "partner").exchange()
        .expectStatus().isOk().expectBody(String.class).isEqualTo("weir_web_context|partner");
    http.get().uri("/context").exchange()
        .expectStatus().isOk().expectBody(String.class).isEqualTo("weir_web_context|");
  }

  @Test
  void aChainRuleOnTheWebContextAppliesToRequestsOnly() {
    http.get().uri("/chain").exchange()
        .expectStatus().isEqualTo(429)
        .expectBody().jsonPath("$.resource").isEqualTo("flux.chain");
    try (Entry entry = weir.entry("flux.chain")) {
      assertThat(entry).as("outside a web request the chain rule does not apply").isNotNull();
    }
  }

  @Test
  void theApplicationsOwnHandlersWin() {
    http.get().uri("/own-advice").exchange()
        .expectStatus().isEqualTo(418)
        .expectBody(String.class).isEqualTo("handled by the application: flux.own");
    http.get().uri("/local-handler").exchange()
        .expectStatus().isOk()
        .expectBody(String.class).isEqualTo("handled locally: FlowException");
  }

  @Test
  void otherErrorsAndRefusalsAsACauseGoToSpringBootsErrorHandling() {
    for (String path : new String[] {"/failed", "/wrapped"}) {
      EntityExchangeResult<byte[]> result = http.get().uri(path).exchange()
          .expectStatus().isEqualTo(500)
          .expectHeader().doesNotExist("Retry-After")
          .expectBody().returnResult();
      assertThat(json(result)).as(path).containsEntry("status", 500).containsEntry("path", path)
          .doesNotContainKey("type");
    }
    assertThat(new IllegalStateException("wrapped", new FlowException("r", null, 0)).getCause())
        .isInstanceOf(BlockException.class);
  }
}
