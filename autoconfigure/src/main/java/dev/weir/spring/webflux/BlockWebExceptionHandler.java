package dev.weir.spring.webflux;

import dev.weir.BlockException;
import dev.weir.spring.web.BlockProblems;
import dev.weir.spring.web.RateLimitHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Answers a {@link BlockException} that ended a WebFlux request with what the
 * {@link ReactiveBlockResponseFactory} makes of it: the same status, headers and body a Spring MVC
 * application gives. Like Weir's Spring MVC resolver, it answers the error itself, not an exception
 * whose cause is a refusal (that one stays an error for the application's own handling).
 *
 * <p>It runs where WebFlux sends errors its handlers did not handle: a controller's or
 * {@code @ControllerAdvice}'s {@code @ExceptionHandler} for the exception (or a supertype of it)
 * answers first, inside the dispatcher. Among the {@link WebExceptionHandler}s it is ordered at
 * {@link #DEFAULT_ORDER}, before Spring Boot's {@code ErrorWebExceptionHandler} (-1) and
 * Spring's {@code WebFluxResponseStatusExceptionHandler} (0). A response already committed is left
 * alone (the error goes on to the next handler), and any other error is passed on untouched.
 */
public final class BlockWebExceptionHandler implements WebExceptionHandler, Ordered {

  /** The handler's default order: before Spring Boot's error handler, which is at -1. */
  public static final int DEFAULT_ORDER = -2;

  private static final Log logger = LogFactory.getLog(BlockWebExceptionHandler.class);

  private final ReactiveBlockResponseFactory responses;
  private final Supplier<List<HttpMessageWriter<?>>> writers;
  private final boolean rateLimitHeaders;

  /**
   * Creates the handler.
   *
   * @param responses makes the answers
   * @param writers the message writers for bodies other than {@link ProblemDetail}; asked on each
   *     such answer
   */
  public BlockWebExceptionHandler(ReactiveBlockResponseFactory responses, Supplier<List<HttpMessageWriter<?>>> writers) {
    this(responses, writers, true);
  }

  /**
   * Creates the handler.
   *
   * @param responses makes the answers
   * @param writers the message writers for bodies other than {@link ProblemDetail}; asked on each
   *     such answer
   * @param rateLimitHeaders whether a 429 answer to a flow or param-flow refusal carries that
   *     refusal's {@code RateLimit-Policy} and {@code RateLimit} headers (unless the factory set
   *     some, or a route answered its own refusal with its quotas)
   */
  public BlockWebExceptionHandler(ReactiveBlockResponseFactory responses, Supplier<List<HttpMessageWriter<?>>> writers,
      boolean rateLimitHeaders) {
    this.responses = responses;
    this.writers = writers;
    this.rateLimitHeaders = rateLimitHeaders;
  }

  @Override
  public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
    if (!(error instanceof BlockException block)) {
      return Mono.error(error);
    }
    ServerHttpResponse response = exchange.getResponse();
    if (response.isCommitted()) {
      logger.debug(exchange.getLogPrefix() + "Response already committed; cannot answer " + block.getMessage());
      return Mono.error(error);
    }
    ResponseEntity<?> answer = responses.create(block, exchange);
    if (rateLimitHeaders && answer.getStatusCode().value() == 429 && !answer.getHeaders().containsHeader(
        RateLimitHeaders.STATE) && exchange.getAttribute(WeirRouteWebFilter.QUOTAS_WRITTEN) == null) {
      RateLimitHeaders.write(block, response.getHeaders()::set);
    }
    return write(answer, exchange);
  }

  @SuppressWarnings("unchecked")
  private Mono<Void> write(ResponseEntity<?> entity, ServerWebExchange exchange) {
    ServerHttpResponse response = exchange.getResponse();
    response.setStatusCode(entity.getStatusCode());
    response.getHeaders().putAll(entity.getHeaders());
    Object body = entity.getBody();
    MediaType type = entity.getHeaders().getContentType();
    if (body instanceof ProblemDetail problem) {
      if (type == null) {
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
      }
      byte[] json = BlockProblems.json(problem).getBytes(StandardCharsets.UTF_8);
      response.getHeaders().setContentLength(json.length);
      return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(json)));
    }
    if (body != null) {
      MediaType target = type != null ? type : MediaType.APPLICATION_JSON;
      ResolvableType bodyType = ResolvableType.forInstance(body);
      for (HttpMessageWriter<?> writer : writers.get()) {
        if (writer.canWrite(bodyType, target)) {
          Map<String, Object> hints = Hints.from(Hints.LOG_PREFIX_HINT, exchange.getLogPrefix());
          return ((HttpMessageWriter<Object>) writer).write(Mono.just(body), bodyType, bodyType, target,
              exchange.getRequest(), response, hints);
        }
      }
      logger.warn(exchange.getLogPrefix() + "No message writer writes " + body.getClass().getName() + " as "
          + target + "; answering without a body");
    }
    return response.setComplete();
  }

  @Override
  public int getOrder() {
    return DEFAULT_ORDER;
  }
}
