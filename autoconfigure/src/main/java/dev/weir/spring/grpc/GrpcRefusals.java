package dev.weir.spring.grpc;

import dev.weir.BlockException;
import dev.weir.ParamFlowException;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;

/**
 * How a refusal ends a gRPC call: its status and trailers.
 *
 * <ul>
 *   <li>flow, param-flow and system rules: {@code RESOURCE_EXHAUSTED}; degrade (an open circuit):
 *       {@code UNAVAILABLE}; authority: {@code PERMISSION_DENIED}; a call refused because it had no
 *       key ({@code null-key: deny}, {@link ParamFlowException#missingKey()}): {@code INVALID_ARGUMENT},
 *       the caller's error, as HTTP's {@code 400};
 *   <li>the trailer {@value #PUSHBACK}: the refusal's retry-after in milliseconds, rounded up; 1000
 *       when the rule does not know (as HTTP's {@code Retry-After} is at least one second); for
 *       authority and a missing key {@code -1}, which tells a gRPC client's retry policy not to retry
 *       (gRFC A6), since the same call is refused again;
 *   <li>the description: a sentence for people naming the resource, without the rule's settings.
 * </ul>
 */
final class GrpcRefusals {

  /** The trailer a gRPC server pushes back a client's retries with (gRFC A6). */
  static final String PUSHBACK = "grpc-retry-pushback-ms";

  static final Metadata.Key<String> PUSHBACK_KEY = Metadata.Key.of(PUSHBACK, Metadata.ASCII_STRING_MARSHALLER);

  private GrpcRefusals() {
  }

  /** Returns the status a call refused by {@code refusal} ends with, the refusal as its (local) cause. */
  static Status status(BlockException refusal) {
    String resource = refusal.resource();
    Status status = switch (refusal.ruleKind()) {
      case DEGRADE -> Status.UNAVAILABLE.withDescription(
          "Calls of " + resource + " are suspended while its circuit breaker is open.");
      case AUTHORITY -> Status.PERMISSION_DENIED.withDescription("This caller may not call " + resource + ".");
      case SYSTEM -> Status.RESOURCE_EXHAUSTED.withDescription(
          "The application is at its capacity; the call of " + resource + " was refused.");
      case PARAM_FLOW -> missingKey(refusal)
          ? Status.INVALID_ARGUMENT.withDescription(
              "The call of " + resource + " has no key: " + keyName(refusal) + " is missing.")
          : Status.RESOURCE_EXHAUSTED.withDescription("Too many calls of " + resource + " with this argument.");
      case FLOW -> Status.RESOURCE_EXHAUSTED.withDescription("Too many calls of " + resource + ".");
    };
    return status.withCause(refusal);
  }

  /** Whether {@code refusal} refused a call because it had no key. */
  static boolean missingKey(BlockException refusal) {
    return refusal instanceof ParamFlowException param && param.missingKey();
  }

  /** The key a call refused by {@code refusal} lacked: the rule's key expression, or its argument. */
  private static String keyName(BlockException refusal) {
    if (refusal.rule() instanceof ParamFlowRule rule) {
      return rule.key() != null ? rule.key() : "argument " + rule.paramIndex();
    }
    return "its key";
  }

  /** Returns the trailers of a call refused by {@code refusal}. */
  static Metadata trailers(BlockException refusal) {
    Metadata trailers = new Metadata();
    trailers.put(PUSHBACK_KEY, Long.toString(pushbackMillis(refusal)));
    return trailers;
  }

  /** The pushback of {@code refusal} in milliseconds; negative means "do not retry". */
  static long pushbackMillis(BlockException refusal) {
    if (refusal.ruleKind() == RuleKind.AUTHORITY || missingKey(refusal)) {
      return -1;
    }
    long nanos = refusal.retryAfterNanos();
    if (nanos <= 0) {
      return 1000;
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(nanos);
    return TimeUnit.MILLISECONDS.toNanos(millis) < nanos ? millis + 1 : millis;
  }
}
