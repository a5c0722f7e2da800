package dev.weir;

import dev.weir.rule.Rule;
import dev.weir.rule.RuleKind;
import org.jspecify.annotations.Nullable;

/** A call refused because its origin is not allowed. HTTP maps it to 403. */
public final class AuthorityException extends BlockException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param resource the refused resource
   * @param rule the rule that refused it, or {@code null}
   * @param retryAfterNanos nanoseconds until a permit is expected to be free; 0 when unknown
   */
  public AuthorityException(String resource, @Nullable Rule rule, long retryAfterNanos) {
    super(resource, rule, retryAfterNanos);
  }

  @Override
  public RuleKind ruleKind() {
    return RuleKind.AUTHORITY;
  }
}
