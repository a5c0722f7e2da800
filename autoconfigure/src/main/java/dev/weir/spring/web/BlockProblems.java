package dev.weir.spring.web;

import dev.weir.BlockException;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The default HTTP answer to a refusal, the same for Spring MVC and WebFlux: an RFC 9457 problem
 * ({@code application/problem+json}).
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
 * Rule details (counts, origins) are not disclosed to the caller. The static methods are there for
 * answer factories of your own that keep some of these rules.
 */
public final class BlockProblems {

  /** The prefix of the problem {@code type} URIs; the rule kind's tag follows. */
  public static final String TYPE_PREFIX = "urn:weir:block:";

  private BlockProblems() {
  }

  /**
   * Returns the answer to {@code exception}: status, headers ({@code Content-Type}, and
   * {@code Retry-After} unless 403) and the problem.
   *
   * @param exception the refusal
   * @param path the raw path of the request, the problem's {@code instance}; left out when null or
   *     not a valid URI reference
   */
  public static ResponseEntity<ProblemDetail> answer(BlockException exception, @Nullable String path) {
    HttpStatus status = statusOf(exception);
    ProblemDetail problem = ProblemDetail.forStatus(status);
    problem.setType(URI.create(TYPE_PREFIX + exception.ruleKind().tag()));
    problem.setTitle(status.getReasonPhrase());
    problem.setDetail(detail(exception, status));
    problem.setInstance(uriOf(path));
    problem.setProperty("resource", exception.resource());
    ResponseEntity.BodyBuilder response = ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
    if (status != HttpStatus.FORBIDDEN) {
      response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(exception)));
    }
    return response.body(problem);
  }

  /** Returns the status for {@code exception}: 429, or 503 for degrade and 403 for authority rules. */
  public static HttpStatus statusOf(BlockException exception) {
    return switch (exception.ruleKind()) {
      case DEGRADE -> HttpStatus.SERVICE_UNAVAILABLE;
      case AUTHORITY -> HttpStatus.FORBIDDEN;
      case FLOW, PARAM_FLOW, SYSTEM -> HttpStatus.TOO_MANY_REQUESTS;
    };
  }

  /** Returns {@link BlockException#retryAfter()} in whole seconds, rounded up, and at least 1. */
  public static long retryAfterSeconds(BlockException exception) {
    long nanos = exception.retryAfterNanos();
    long seconds = nanos / 1_000_000_000L + (nanos % 1_000_000_000L == 0 ? 0 : 1);
    return Math.max(1, seconds);
  }

  /**
   * Returns {@code problem} as RFC 9457 JSON, written by Weir without a JSON library (so the answer
   * does not depend on the application's JSON settings), its properties as top-level members.
   * Property values may be strings, numbers, booleans, maps, collections or arrays of those; other
   * objects are written as their {@code toString()}.
   */
  public static String json(ProblemDetail problem) {
    return ProblemJson.write(problem);
  }

  private static String detail(BlockException exception, HttpStatus status) {
    String resource = "'" + exception.resource() + "'";
    String sentence = switch (exception.ruleKind()) {
      case DEGRADE -> "Calls of " + resource + " are suspended while its circuit breaker is open.";
      case AUTHORITY -> "This caller may not call " + resource + ".";
      case SYSTEM -> "The application is at its capacity; the call of " + resource + " was refused.";
      case PARAM_FLOW -> "Too many calls of " + resource + " with this argument.";
      case FLOW -> "Too many calls of " + resource + ".";
    };
    if (status == HttpStatus.FORBIDDEN) {
      return sentence;
    }
    long seconds = retryAfterSeconds(exception);
    return sentence + " Retry after " + seconds + (seconds == 1 ? " second." : " seconds.");
  }

  private static @Nullable URI uriOf(@Nullable String path) {
    if (path == null) {
      return null;
    }
    try {
      return URI.create(path);
    } catch (IllegalArgumentException e) {
      return null; // not a valid URI reference: leave instance out
    }
  }
}
