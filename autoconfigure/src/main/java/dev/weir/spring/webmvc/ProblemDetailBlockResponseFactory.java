package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import dev.weir.spring.web.BlockProblems;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The default {@link BlockResponseFactory}: an RFC 9457 problem ({@code application/problem+json}),
 * as {@link BlockProblems} describes it (the same answer WebFlux applications give).
 * <ul>
 *   <li>status: {@code 429 Too Many Requests} for flow, param-flow and system rules;
 *       {@code 503 Service Unavailable} for degrade rules (open circuit); {@code 403 Forbidden} for
 *       authority rules;
 *   <li>{@code Retry-After} on 429 and 503: the block's {@link BlockException#retryAfter()} in
 *       whole seconds, rounded up, at least 1;
 *   <li>body: {@code type} {@code urn:weir:block:<rule kind>}, {@code title} (the status' reason
 *       phrase), {@code status}, {@code detail} (a sentence for people), {@code instance} (the
 *       request path) and {@code resource} (the refused resource).
 * </ul>
 * Rule details (counts, origins) are not disclosed to the caller.
 */
public final class ProblemDetailBlockResponseFactory implements BlockResponseFactory {

  /** The prefix of the problem {@code type} URIs; the rule kind follows. */
  public static final String TYPE_PREFIX = BlockProblems.TYPE_PREFIX;

  @Override
  public ResponseEntity<ProblemDetail> create(BlockException exception, HttpServletRequest request) {
    return BlockProblems.answer(exception, request.getRequestURI());
  }

  /**
   * Returns the status for {@code exception}: 429, or 503 for degrade and 403 for authority rules.
   *
   * @see BlockProblems#statusOf(BlockException)
   */
  public static HttpStatus statusOf(BlockException exception) {
    return BlockProblems.statusOf(exception);
  }

  /**
   * Returns {@link BlockException#retryAfter()} in whole seconds, rounded up, and at least 1.
   *
   * @see BlockProblems#retryAfterSeconds(BlockException)
   */
  public static long retryAfterSeconds(BlockException exception) {
    return BlockProblems.retryAfterSeconds(exception);
  }
}
