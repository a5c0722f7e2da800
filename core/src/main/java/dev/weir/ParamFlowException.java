package dev.weir;

import dev.weir.rule.Rule;
import dev.weir.rule.RuleKind;
import org.jspecify.annotations.Nullable;

/**
 * A call refused by a hot-parameter limit. HTTP maps it to 429, or to 400 when the call was refused
 * because it had no key ({@link #missingKey()}).
 */
public final class ParamFlowException extends BlockException {

  private static final long serialVersionUID = 1L;

  private final boolean missingKey;

  /**
   * Creates the exception of a call refused by the limit of its key.
   *
   * @param resource the refused resource
   * @param rule the rule that refused it, or {@code null}
   * @param retryAfterNanos nanoseconds until a permit is expected to be free; 0 when unknown
   */
  public ParamFlowException(String resource, @Nullable Rule rule, long retryAfterNanos) {
    this(resource, rule, retryAfterNanos, false);
  }

  /**
   * Creates the exception.
   *
   * @param resource the refused resource
   * @param rule the rule that refused it, or {@code null}
   * @param retryAfterNanos nanoseconds until a permit is expected to be free; 0 when unknown
   * @param missingKey whether the call was refused because it had no key (see {@link #missingKey()})
   */
  public ParamFlowException(String resource, @Nullable Rule rule, long retryAfterNanos, boolean missingKey) {
    super(resource, rule, retryAfterNanos);
    this.missingKey = missingKey;
  }

  /**
   * Returns whether the call was refused because it had no key: its key (the argument, or the key
   * expression's value) was null and the rule says {@code null-key: deny}. No wait makes such a call
   * pass, so {@link #retryAfter()} is zero: it is the caller's error (HTTP {@code 400}, gRPC
   * {@code INVALID_ARGUMENT}), not a rate.
   */
  public boolean missingKey() {
    return missingKey;
  }

  @Override
  public RuleKind ruleKind() {
    return RuleKind.PARAM_FLOW;
  }

  @Override
  public String getMessage() {
    return missingKey ? super.getMessage() + " (the call has no key)" : super.getMessage();
  }
}
