package dev.weir.rule;

/** A rule attached to one resource: a flow, circuit-breaker, hot-parameter or authority rule. */
public sealed interface ResourceRule extends Rule permits FlowRule, DegradeRule, ParamFlowRule, AuthorityRule {

  /** Returns the name of the resource this rule guards. */
  String resource();

  /** Returns this rule with {@link #shadow()} set to {@code shadow}, everything else equal. */
  @Override
  ResourceRule withShadow(boolean shadow);
}
