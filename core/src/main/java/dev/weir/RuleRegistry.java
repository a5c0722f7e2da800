package dev.weir;

import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowRuleValidator;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleViolation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules in force in one engine. Rules are replaced per resource, atomically: a call sees either
 * all the old rules of its resource or all the new ones. Every change is validated first; invalid
 * rules are refused with an {@link InvalidRulesException} that lists every problem, and then
 * nothing changes. The state of a rule equal to one already in force (window counts, warm-up
 * progress, queue position) is kept across the replacement.
 */
public final class RuleRegistry {

  private final Engine engine;
  private final Object lock = new Object();

  RuleRegistry(Engine engine) {
    this.engine = engine;
  }

  /** Returns the flow rules in force for {@code resource}; empty when none. */
  public List<FlowRule> flowRules(String resource) {
    return engine.flowRules(resource);
  }

  /** Returns the flow rules in force for every resource that has some. */
  public Map<String, List<FlowRule>> flowRules() {
    return engine.flowRules();
  }

  /**
   * Replaces the flow rules of one resource; an empty list removes them. Every rule must name
   * {@code resource}.
   *
   * @throws InvalidRulesException with every problem (fields as {@code [0].count}); nothing changed
   */
  public void replaceFlowRules(String resource, List<FlowRule> rules) {
    List<RuleViolation> violations = validateFlowRules(rules);
    for (int i = 0; i < rules.size(); i++) {
      if (!rules.get(i).resource().equals(resource)) {
        violations.add(new RuleViolation("[" + i + "].resource", "must be '" + resource + "' here, was '"
            + rules.get(i).resource() + "'"));
      }
    }
    if (!violations.isEmpty()) {
      throw new InvalidRulesException(violations);
    }
    synchronized (lock) {
      engine.replaceFlowRules(resource, rules);
    }
  }

  /**
   * Replaces all flow rules: afterwards exactly {@code rules} are in force, grouped by resource.
   * Each resource changes atomically; resources change one after the other.
   *
   * @throws InvalidRulesException with every problem (fields as {@code [3].grade}); nothing changed
   */
  public void loadFlowRules(List<FlowRule> rules) {
    List<RuleViolation> violations = validateFlowRules(rules);
    if (!violations.isEmpty()) {
      throw new InvalidRulesException(violations);
    }
    Map<String, List<FlowRule>> byResource = new LinkedHashMap<>();
    for (FlowRule rule : rules) {
      byResource.computeIfAbsent(rule.resource(), r -> new ArrayList<>()).add(rule);
    }
    synchronized (lock) {
      for (String resource : engine.flowRules().keySet()) {
        byResource.putIfAbsent(resource, List.of());
      }
      byResource.forEach(engine::replaceFlowRules);
    }
  }

  /**
   * Returns every problem of {@code rules} as this engine would judge them, without changing
   * anything: field problems, and rules this engine cannot enforce.
   */
  public List<RuleViolation> validateFlowRules(List<FlowRule> rules) {
    List<RuleViolation> violations = new ArrayList<>(FlowRuleValidator.validate(rules));
    for (int i = 0; i < rules.size(); i++) {
      if (rules.get(i).clusterMode()) {
        violations.add(new RuleViolation("[" + i + "].cluster-mode",
            "needs a cluster limiter, and this engine has none (weir.cluster.enabled)"));
      }
    }
    return violations;
  }
}
