package dev.weir.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.DegradeException;
import dev.weir.FlowException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

/** What the exception handler does with each kind of error and response, on Spring's mock exchanges. */
class BlockWebExceptionHandlerTests {

  private final BlockWebExceptionHandler handler = new BlockWebExceptionHandler(
      new ProblemDetailReactiveBlockResponseFactory(), () -> ServerCodecConfigurer.create().getWriters());

  private static MockServerWebExchange get(String path) {
    return MockServerWebExchange.from(MockServerHttpRequest.get(path));
  }

  @Test
  void isOrderedBeforeSpringBootsErrorHandler() {
    assertThat(handler.getOrder()).isEqualTo(BlockWebExceptionHandler.DEFAULT_ORDER).isLessThan(-1);
  }

  @Test
  @SuppressWarnings("unchecked")
  void answersARefusalWithTheProblem() {
    MockServerWebExchange exchange = get("/orders/7?x=1");
    StepVerifier.create(handler.handle(exchange, new DegradeException("orders", null, 1_200_000_000L)))
        .verifyComplete();
    assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
    assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("2");
    assertThat(exchange.getResponse().getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    String body = exchange.getResponse().getBodyAsString().block();
    assertThat(exchange.getResponse().getHeaders().getContentLength()).isEqualTo(body.getBytes().length);
    assertThat(JsonMapper.builder().build().readValue(body, Map.class))
        .containsEntry("type", "urn:weir:block:degrade").containsEntry("instance", "/orders/7")
        .containsEntry("resource", "orders").containsEntry("status", 503);
  }

  @Test
  void passesOnOtherErrorsAndRefusalsWrappedInThem() {
    IllegalStateException failure = new IllegalStateException("boom");
    MockServerWebExchange exchange = get("/");
    StepVerifier.create(handler.handle(exchange, failure)).verifyErrorSatisfies(e -> assertThat(e).isSameAs(failure));
    IllegalStateException wrapped = new IllegalStateException("wrapped", new FlowException("r", null, 0));
    StepVerifier.create(handler.handle(exchange, wrapped)).verifyErrorSatisfies(e -> assertThat(e).isSameAs(wrapped));
    assertThat(exchange.getResponse().getStatusCode()).isNull();
    assertThat(exchange.getResponse().isCommitted()).isFalse();
  }

  @Test
  void leavesACommittedResponseAlone() {
    MockServerWebExchange exchange = get("/");
    exchange.getResponse().setStatusCode(HttpStatus.OK);
    exchange.getResponse().setComplete().block();
    FlowException refusal = new FlowException("r", null, 0);
    StepVerifier.create(handler.handle(exchange, refusal)).verifyErrorSatisfies(e -> assertThat(e).isSameAs(refusal));
    assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.OK);
    assertThat(exchange.getResponse().getHeaders().containsHeader("Retry-After")).isFalse();
  }

  @Test
  void writesOtherBodiesThroughTheCodecsAndNoBodyWithoutAWriter() {
    ReactiveBlockResponseFactory own = (exception, exchange) -> ResponseEntity.status(429)
        .body(List.of(exception.resource(), "later"));
    MockServerWebExchange exchange = get("/");
    new BlockWebExceptionHandler(own, () -> ServerCodecConfigurer.create().getWriters())
        .handle(exchange, new FlowException("r", null, 0)).block();
    assertThat(exchange.getResponse().getStatusCode().value()).isEqualTo(429);
    assertThat(exchange.getResponse().getBodyAsString().block()).isEqualTo("[\"r\",\"later\"]");

    MockServerWebExchange bare = get("/");
    new BlockWebExceptionHandler(own, List::of).handle(bare, new FlowException("r", null, 0)).block();
    assertThat(bare.getResponse().getStatusCode().value()).isEqualTo(429);
    assertThat(bare.getResponse().isCommitted()).isTrue();
  }
}
