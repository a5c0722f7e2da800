package dev.weir;

import dev.weir.rule.AuthorityRule;

/**
 * Everything one resource's calls are checked against, published as one immutable value: the flow
 * rule states, circuit breakers, hot-parameter states, authority rules, and the slot chain compiled
 * for them. A call reads it once, when it starts, and every slot decides against that same value,
 * so a rules replacement (one volatile write of a new value) is seen by a call entirely or not at
 * all: never the old flow rules with the new authority rules.
 */
final class ResourceRules {

  static final ResourceRules NONE = new ResourceRules(FlowRuleSet.EMPTY, new CircuitBreaker[0],
      new ParamFlowRuleState[0], new AuthorityRule[0], SlotChain.EMPTY);

  final FlowRuleSet flow;
  final CircuitBreaker[] breakers;
  final ParamFlowRuleState[] paramFlow;
  final AuthorityRule[] authority;
  final SlotChain chain;

  ResourceRules(FlowRuleSet flow, CircuitBreaker[] breakers, ParamFlowRuleState[] paramFlow,
      AuthorityRule[] authority, SlotChain chain) {
    this.flow = flow;
    this.breakers = breakers;
    this.paramFlow = paramFlow;
    this.authority = authority;
    this.chain = chain;
  }

  /** The same rules with another chain (the system rule changed). */
  ResourceRules withChain(SlotChain chain) {
    return new ResourceRules(flow, breakers, paramFlow, authority, chain);
  }
}
