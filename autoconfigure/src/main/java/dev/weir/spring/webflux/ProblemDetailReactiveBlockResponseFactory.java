package dev.weir.spring.webflux;

import dev.weir.BlockException;
import dev.weir.spring.web.BlockProblems;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.server.ServerWebExchange;

/**
 * The default {@link ReactiveBlockResponseFactory}: the RFC 9457 problem that Spring MVC
 * applications get too, as {@link BlockProblems} describes it (429, 503 or 403 by rule kind,
 * {@code Retry-After} on 429 and 503, {@code type}, {@code title}, {@code status}, {@code detail},
 * {@code instance} as the request's raw path, and {@code resource}).
 */
public final class ProblemDetailReactiveBlockResponseFactory implements ReactiveBlockResponseFactory {

  @Override
  public ResponseEntity<ProblemDetail> create(BlockException exception, ServerWebExchange exchange) {
    return BlockProblems.answer(exception, exchange.getRequest().getPath().value());
  }
}
