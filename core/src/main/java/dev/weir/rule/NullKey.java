package dev.weir.rule;

/**
 * How a hot-parameter rule decides a call whose key is null: a null argument, a
 * {@code ParamFlowKey} that answers null, or a key expression that evaluates to null (or fails).
 */
public enum NullKey {
  /** The call is not limited by this rule. */
  ALLOW,
  /** The call is refused by this rule, as a {@code ParamFlowException} with no retry-after. */
  DENY,
  /** Every null-key call of the rule counts under one shared key, limited like any other key. */
  SHARED
}
