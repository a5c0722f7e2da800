package dev.weir.spring.properties;

import dev.weir.rule.RuleSet;
import java.util.List;

/**
 * The rules of one or more resources as properties: the lists of {@code weir.flow},
 * {@code weir.degrade}, {@code weir.param-flow} and {@code weir.authority}, or the same lists posted
 * to the {@code weir} actuator endpoint. Rule {@code i} of each list becomes rule {@code i} of the
 * same kind of the engine's {@link RuleSet}, so that problems the engine reports
 * ({@code flow[0].count}) name the property they came from.
 *
 * @param flow flow rules
 * @param degrade circuit breakers
 * @param paramFlow hot-parameter rules
 * @param authority allow and deny lists
 */
public record RuleLists(List<FlowRuleProperties> flow, List<DegradeRuleProperties> degrade,
    List<ParamFlowRuleProperties> paramFlow, List<AuthorityRuleProperties> authority) {

  /** Copies the lists. */
  public RuleLists {
    flow = List.copyOf(flow);
    degrade = List.copyOf(degrade);
    paramFlow = List.copyOf(paramFlow);
    authority = List.copyOf(authority);
  }

  /** Returns the rule lists of {@code weir.*}. */
  public static RuleLists of(WeirProperties properties) {
    return new RuleLists(properties.getFlow(), properties.getDegrade(), properties.getParamFlow(),
        properties.getAuthority());
  }

  /**
   * Returns the engine rules, rule {@code i} of each list at index {@code i}. A missing required
   * value reads as a placeholder here (a count of 0, a threshold of NaN);
   * {@link WeirPropertiesValidator} reports it.
   */
  public RuleSet toRuleSet() {
    return toRuleSet(false);
  }

  /**
   * Returns the engine rules as {@link #toRuleSet()} does, a rule that does not set {@code shadow}
   * in shadow mode when {@code shadowByDefault} ({@code weir.shadow}); a rule's own
   * {@code shadow: false} keeps it in force.
   */
  public RuleSet toRuleSet(boolean shadowByDefault) {
    return new RuleSet(
        flow.stream().map(rule -> rule.toRule().withShadow(rule.shadow(shadowByDefault))).toList(),
        degrade.stream().map(rule -> rule.toRule().withShadow(rule.shadow(shadowByDefault))).toList(),
        paramFlow.stream().map(rule -> rule.toRule().withShadow(rule.shadow(shadowByDefault))).toList(),
        authority.stream().map(rule -> rule.toRule().withShadow(rule.shadow(shadowByDefault))).toList());
  }
}
