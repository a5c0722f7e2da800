package dev.weir;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import org.jspecify.annotations.Nullable;

/** A call refused by a flow rule (rate or concurrency limit). HTTP maps it to 429. */
public final class FlowException extends BlockException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param resource the refused resource
   * @param rule the rule that refused it, or {@code null}
   * @param retryAfterNanos nanoseconds until a permit is expected to be free; 0 when unknown
   */
  public FlowException(String resource, @Nullable FlowRule rule, long retryAfterNanos) {
    super(resource, rule, retryAfterNanos);
  }

  @Override
  public @Nullable FlowRule rule() {
    return (FlowRule) super.rule();
  }

  @Override
  public RuleKind ruleKind() {
    return RuleKind.FLOW;
  }
}
