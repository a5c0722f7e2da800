package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The default {@link BlockResponseFactory}: an RFC 9457 problem ({@code application/problem+json}).
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
  public static final String TYPE_PREFIX = "urn:weir:block:";

  @Override
  public ResponseEntity<ProblemDetail> create(BlockException exception, HttpServletRequest request) {
    HttpStatus status = statusOf(exception);
    ProblemDetail problem = ProblemDetail.forStatus(status);
    problem.setType(URI.create(TYPE_PREFIX + exception.ruleKind().tag()));
    problem.setTitle(status.getReasonPhrase());
    problem.setDetail(detail(exception, status));
    problem.setInstance(pathOf(request));
    problem.setProperty("resource", exception.resource());
    ResponseEntity.BodyBuilder response = ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
    if (status != HttpStatus.FORBIDDEN) {
      response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(exception)));
    }
    return response.body(problem);
  }

  /** Returns the status for {@code exception}: 429, or 503 for degrade and 403 for authority rules. */
  public static HttpStatus statusOf(BlockException exception) {
    return switch (exception.ruleKind().tag()) {
      case "degrade" -> HttpStatus.SERVICE_UNAVAILABLE;
      case "authority" -> HttpStatus.FORBIDDEN;
      default -> HttpStatus.TOO_MANY_REQUESTS;
    };
  }

  /** Returns {@link BlockException#retryAfter()} in whole seconds, rounded up, and at least 1. */
  public static long retryAfterSeconds(BlockException exception) {
    long nanos = exception.retryAfterNanos();
    long seconds = nanos / 1_000_000_000L + (nanos % 1_000_000_000L == 0 ? 0 : 1);
    return Math.max(1, seconds);
  }

  private static String detail(BlockException exception, HttpStatus status) {
    String resource = "'" + exception.resource() + "'";
    String sentence = switch (exception.ruleKind().tag()) {
      case "degrade" -> "Calls of " + resource + " are suspended while its circuit breaker is open.";
      case "authority" -> "This caller may not call " + resource + ".";
      case "system" -> "The application is at its capacity; the call of " + resource + " was refused.";
      case "param-flow" -> "Too many calls of " + resource + " with this argument.";
      default -> "Too many calls of " + resource + ".";
    };
    if (status == HttpStatus.FORBIDDEN) {
      return sentence;
    }
    long seconds = retryAfterSeconds(exception);
    return sentence + " Retry after " + seconds + (seconds == 1 ? " second." : " seconds.");
  }

  private static @Nullable URI pathOf(HttpServletRequest request) {
    try {
      return URI.create(request.getRequestURI());
    } catch (IllegalArgumentException e) {
      return null; // not a valid URI reference: leave instance out
    }
  }
}
