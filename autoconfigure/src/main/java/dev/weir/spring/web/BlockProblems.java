package dev.weir.spring.web;

import dev.weir.BlockException;
import dev.weir.ParamFlowException;
import dev.weir.rule.ParamFlowRule;
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
 *       authority rules; {@code 400 Bad Request} for a call refused because it had no key
 *       ({@link ParamFlowException#missingKey()}: {@code null-key: deny}), which no wait makes pass;
 *   <li>{@code Retry-After} on 429 and 503 only: the block's {@link BlockException#retryAfter()} in
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
   * {@code Retry-After} on 429 and 503) and the problem.
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
    if (retries(status)) {
      response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(exception)));
    }
    return response.body(problem);
  }

  /**
   * Returns the status for {@code exception}: 429, or 503 for degrade and 403 for authority rules,
   * and 400 for a call refused because it had no key ({@link #missingKey}).
   */
  public static HttpStatus statusOf(BlockException exception) {
    return switch (exception.ruleKind()) {
      case DEGRADE -> HttpStatus.SERVICE_UNAVAILABLE;
      case AUTHORITY -> HttpStatus.FORBIDDEN;
      case PARAM_FLOW -> missingKey(exception) ? HttpStatus.BAD_REQUEST : HttpStatus.TOO_MANY_REQUESTS;
      case FLOW, SYSTEM -> HttpStatus.TOO_MANY_REQUESTS;
    };
  }

  /** Whether {@code exception} refused a call because it had no key ({@link ParamFlowException#missingKey()}). */
  public static boolean missingKey(BlockException exception) {
    return exception instanceof ParamFlowException param && param.missingKey();
  }

  /**
   * Names the key a call refused by {@code exception} lacked: the rule's key expression, or the
   * argument at its index; {@code "its key"} when the rule is unknown.
   */
  public static String keyName(BlockException exception) {
    if (exception.rule() instanceof ParamFlowRule rule) {
      return rule.key() != null ? rule.key() : "argument " + rule.paramIndex();
    }
    return "its key";
  }

  private static boolean retries(HttpStatus status) {
    return status == HttpStatus.TOO_MANY_REQUESTS || status == HttpStatus.SERVICE_UNAVAILABLE;
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
      case PARAM_FLOW -> missingKey(exception)
          ? "The call of " + resource + " has no key: " + keyName(exception) + " is missing."
          : "Too many calls of " + resource + " with this argument.";
      case FLOW -> "Too many calls of " + resource + ".";
    };
    if (!retries(status)) {
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
