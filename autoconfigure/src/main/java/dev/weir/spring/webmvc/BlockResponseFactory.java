package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.ResponseEntity;

/**
 * Makes the HTTP answer to a {@link BlockException} that escaped a Spring MVC handler and that the
 * application did not handle itself. Declare a bean of this type to replace the default,
 * {@link ProblemDetailBlockResponseFactory}. A {@link org.springframework.http.ProblemDetail} body
 * is written as {@code application/problem+json} by Weir itself; any other body through the
 * application's message converters.
 */
@FunctionalInterface
public interface BlockResponseFactory {

  /**
   * Returns the answer to {@code exception}, thrown while handling {@code request}.
   *
   * @param exception the refusal
   * @param request the request being handled
   * @return the status, headers and body to send
   */
  ResponseEntity<?> create(BlockException exception, HttpServletRequest request);
}
