package dev.weir;

import dev.weir.rule.FlowRule;
import dev.weir.rule.Rule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.SystemRule;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Thrown when a rule refuses a call. It is thrown once, at the API boundary ({@link Weir#entry});
 * inside the engine a refusal travels as a return value.
 *
 * <p>Block exceptions are control flow, not errors: they capture no stack trace and no suppressed
 * exceptions, and their message is built only when asked for. Each names the {@link #resource()},
 * the {@link #rule()} that refused, and {@link #retryAfter()}: how long until the rule would admit
 * a call again, or {@link Duration#ZERO} when that is unknown.
 */
public abstract sealed class BlockException extends RuntimeException
    permits FlowException, DegradeException, ParamFlowException, AuthorityException, SystemBlockException {

  private static final long serialVersionUID = 1L;

  private final String resource;
  private final transient @Nullable Rule rule;
  private final long retryAfterNanos;

  /**
   * Creates a block of {@code resource} by {@code rule}.
   *
   * @param resource the resource that was refused
   * @param rule the rule that refused it, or {@code null} when no rule object applies
   * @param retryAfterNanos nanoseconds until a permit is expected to be free; 0 when unknown
   */
  BlockException(String resource, @Nullable Rule rule, long retryAfterNanos) {
    super(null, null, false, false);
    this.resource = resource;
    this.rule = rule;
    this.retryAfterNanos = Math.max(0L, retryAfterNanos);
  }

  /** Makes the exception of a refusal of {@code resource} by {@code rule}, of {@code kind}. */
  public static BlockException of(RuleKind kind, String resource, @Nullable Rule rule, long retryAfterNanos) {
    return switch (kind) {
      case FLOW -> new FlowException(resource, (FlowRule) rule, retryAfterNanos);
      case DEGRADE -> new DegradeException(resource, rule, retryAfterNanos);
      case PARAM_FLOW -> new ParamFlowException(resource, rule, retryAfterNanos);
      case AUTHORITY -> new AuthorityException(resource, rule, retryAfterNanos);
      case SYSTEM -> new SystemBlockException(resource, (SystemRule) rule, retryAfterNanos);
    };
  }

  /** Returns the name of the refused resource. */
  public final String resource() {
    return resource;
  }

  /** Returns the rule that refused the call, or {@code null} when none applies. */
  public @Nullable Rule rule() {
    return rule;
  }

  /** Returns how long until a call is expected to be admitted again; zero when unknown. */
  public final Duration retryAfter() {
    return Duration.ofNanos(retryAfterNanos);
  }

  /** Returns {@link #retryAfter()} in nanoseconds, without allocating. */
  public final long retryAfterNanos() {
    return retryAfterNanos;
  }

  /**
   * Returns the kind of the rule that refused the call; its {@link RuleKind#tag() tag} is what
   * metrics and HTTP answers show ({@code flow}, {@code degrade}, {@code param-flow},
   * {@code authority} or {@code system}).
   */
  public abstract RuleKind ruleKind();

  @Override
  public String getMessage() {
    StringBuilder message = new StringBuilder(64)
        .append("Blocked by ").append(ruleKind().tag()).append(" rule on resource '").append(resource).append('\'');
    if (retryAfterNanos > 0) {
      message.append(", retry after ").append(retryAfter());
    }
    if (rule != null) {
      message.append(": ").append(rule);
    }
    return message.toString();
  }
}
