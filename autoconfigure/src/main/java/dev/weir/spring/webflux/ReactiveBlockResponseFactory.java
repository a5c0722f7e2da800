package dev.weir.spring.webflux;

import dev.weir.BlockException;
import org.springframework.http.ResponseEntity;
import org.springframework.web.server.ServerWebExchange;

/**
 * Makes the HTTP answer to a {@link BlockException} that reached WebFlux as the error of a request
 * and that the application did not handle itself; the WebFlux counterpart of
 * {@code dev.weir.spring.webmvc.BlockResponseFactory}. Declare a bean of this type to replace the
 * default, {@link ProblemDetailReactiveBlockResponseFactory}. A
 * {@link org.springframework.http.ProblemDetail} body is written as {@code application/problem+json}
 * by Weir itself; any other body through the application's codecs (its
 * {@link org.springframework.http.codec.ServerCodecConfigurer}'s writers). Making the answer must not
 * block: it runs on the thread that signalled the error.
 */
@FunctionalInterface
public interface ReactiveBlockResponseFactory {

  /**
   * Returns the answer to {@code exception}, the error of {@code exchange}.
   *
   * @param exception the refusal
   * @param exchange the request being answered
   * @return the status, headers and body to send
   */
  ResponseEntity<?> create(BlockException exception, ServerWebExchange exchange);
}
