package dev.weir.spring.webflux;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;

/**
 * The application's own {@link ReactiveOriginResolver} and {@link ReactiveBlockResponseFactory}
 * replace Weir's, over real HTTP: the origin comes from the query parameter {@code caller} (the
 * {@code X-Caller} header of {@code weir.web.origin-header} no longer counts), and refusals are
 * answered in plain text through the application's codecs.
 */
@SpringBootTest(classes = {ReactiveHttpTestApplication.class, CustomReactiveBeansTests.OwnBeans.class},
    webEnvironment = WebEnvironment.RANDOM_PORT, properties = "spring.config.name=webflux-test")
class CustomReactiveBeansTests {

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    @Bean
    ReactiveOriginResolver callerParameter() {
      return exchange -> Mono.justOrEmpty(exchange.getRequest().getQueryParams().getFirst("caller"));
    }

    @Bean
    ReactiveBlockResponseFactory plainText() {
      return (exception, exchange) -> ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
          .header("X-Refused-By", exception.ruleKind().tag())
          .contentType(MediaType.TEXT_PLAIN)
          .body("refused: " + exception.resource() + " at " + exchange.getRequest().getPath());
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
  void theOriginComesFromTheApplicationsResolver() {
    http.get().uri("/context?caller=ops").header("X-Caller", "guest").exchange()
        .expectStatus().isOk().expectBody(String.class).isEqualTo("weir_web_context|ops");
    http.get().uri("/admin?caller=ops").header("X-Caller", "guest").exchange()
        .expectStatus().isOk().expectBody(String.class).isEqualTo("flux.admin in weir_web_context from 'ops'");
    http.get().uri("/admin").header("X-Caller", "guest").exchange() // no origin: not on the allow list
        .expectStatus().isEqualTo(429).expectHeader().valueEquals("X-Refused-By", "authority");
  }

  @Test
  void refusalsAreAnsweredByTheApplicationsFactory() {
    http.get().uri("/admin?caller=guest").exchange()
        .expectStatus().isEqualTo(429)
        .expectHeader().valueEquals("X-Refused-By", "authority")
        .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_PLAIN)
        .expectHeader().doesNotExist("Retry-After")
        .expectBody(String.class).isEqualTo("refused: flux.admin at /admin");
  }
}
