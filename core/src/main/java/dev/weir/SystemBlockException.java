package dev.weir;

import dev.weir.rule.RuleKind;
import dev.weir.rule.SystemRule;
import org.jspecify.annotations.Nullable;

/** An inbound call refused by system protection. HTTP maps it to 429. */
public final class SystemBlockException extends BlockException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param resource the refused resource
   * @param rule the rule that refused it, or {@code null}
   * @param retryAfterNanos nanoseconds until a permit is expected to be free; 0 when unknown
   */
  public SystemBlockException(String resource, @Nullable SystemRule rule, long retryAfterNanos) {
    super(resource, rule, retryAfterNanos);
  }

  @Override
  public @Nullable SystemRule rule() {
    return (SystemRule) super.rule();
  }

  @Override
  public RuleKind ruleKind() {
    return RuleKind.SYSTEM;
  }
}
