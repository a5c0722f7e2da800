package dev.weir.rule;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Rules of every per-resource kind, as written in configuration: flow, circuit breakers,
 * hot-parameter and authority rules, each a list over any number of resources. Immutable.
 *
 * @param flow flow rules
 * @param degrade circuit-breaker rules
 * @param paramFlow hot-parameter rules
 * @param authority authority rules
 */
public record RuleSet(List<FlowRule> flow, List<DegradeRule> degrade, List<ParamFlowRule> paramFlow,
    List<AuthorityRule> authority) {

  private static final RuleSet EMPTY = new RuleSet(List.of(), List.of(), List.of(), List.of());

  /** Replaces null lists by empty ones and copies the lists. */
  public RuleSet {
    flow = flow == null ? List.of() : List.copyOf(flow);
    degrade = degrade == null ? List.of() : List.copyOf(degrade);
    paramFlow = paramFlow == null ? List.of() : List.copyOf(paramFlow);
    authority = authority == null ? List.of() : List.copyOf(authority);
  }

  /**
   * Returns the set of {@code rules}, each under its kind, in the order given:
   * {@code RuleSet.of(FlowRule.qps("createOrder", 100), degradeRule)}.
   */
  public static RuleSet of(ResourceRule... rules) {
    List<FlowRule> flow = new ArrayList<>();
    List<DegradeRule> degrade = new ArrayList<>();
    List<ParamFlowRule> paramFlow = new ArrayList<>();
    List<AuthorityRule> authority = new ArrayList<>();
    for (ResourceRule rule : rules) {
      if (rule instanceof FlowRule r) {
        flow.add(r);
      } else if (rule instanceof DegradeRule r) {
        degrade.add(r);
      } else if (rule instanceof ParamFlowRule r) {
        paramFlow.add(r);
      } else {
        authority.add((AuthorityRule) rule);
      }
    }
    return new RuleSet(flow, degrade, paramFlow, authority);
  }

  /** Returns the set without rules. */
  public static RuleSet empty() {
    return EMPTY;
  }

  /** Returns this set with {@code flow} in place of its flow rules. */
  public RuleSet withFlow(List<FlowRule> flow) {
    return new RuleSet(flow, degrade, paramFlow, authority);
  }

  /** Returns this set with {@code degrade} in place of its circuit-breaker rules. */
  public RuleSet withDegrade(List<DegradeRule> degrade) {
    return new RuleSet(flow, degrade, paramFlow, authority);
  }

  /** Returns this set with {@code paramFlow} in place of its hot-parameter rules. */
  public RuleSet withParamFlow(List<ParamFlowRule> paramFlow) {
    return new RuleSet(flow, degrade, paramFlow, authority);
  }

  /** Returns this set with {@code authority} in place of its authority rules. */
  public RuleSet withAuthority(List<AuthorityRule> authority) {
    return new RuleSet(flow, degrade, paramFlow, authority);
  }

  /** Returns whether the set has no rule. */
  public boolean isEmpty() {
    return flow.isEmpty() && degrade.isEmpty() && paramFlow.isEmpty() && authority.isEmpty();
  }

  /** Returns the rules of one resource. */
  public RuleSet forResource(String resource) {
    return new RuleSet(only(flow, resource), only(degrade, resource), only(paramFlow, resource),
        only(authority, resource));
  }

  /** Returns every resource some rule names, in order of first mention. */
  public Set<String> resources() {
    Set<String> resources = new LinkedHashSet<>();
    for (List<? extends ResourceRule> rules : List.of(flow, degrade, paramFlow, authority)) {
      for (ResourceRule rule : rules) {
        resources.add(rule.resource());
      }
    }
    return resources;
  }

  /**
   * Returns every field problem, named as in YAML under the kind: {@code flow[0].count},
   * {@code degrade[1].threshold}, {@code param-flow[0].param-index}, {@code authority[2].limit-app},
   * and a name given to two rate rules of one resource ({@link RuleNames}).
   */
  public List<RuleViolation> validate() {
    List<RuleViolation> out = new ArrayList<>();
    prefix(out, "flow", FlowRuleValidator.validate(flow));
    prefix(out, "degrade", DegradeRuleValidator.validate(degrade));
    prefix(out, "param-flow", ParamFlowRuleValidator.validate(paramFlow));
    prefix(out, "authority", AuthorityRuleValidator.validate(authority));
    RuleNames.checkUnique(flow, paramFlow, out);
    return out;
  }

  private static void prefix(List<RuleViolation> out, String kind, List<RuleViolation> violations) {
    for (RuleViolation violation : violations) {
      out.add(violation.under(kind));
    }
  }

  private static <R extends ResourceRule> List<R> only(List<R> rules, String resource) {
    return rules.stream().filter(rule -> rule.resource().equals(resource)).toList();
  }
}
