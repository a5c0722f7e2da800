package dev.weir.spring.autoconfigure;

import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns rules written as properties ({@code weir.flow}, {@code weir.degrade},
 * {@code weir.param-flow}, {@code weir.authority}, or the same shape posted to the actuator
 * endpoint) into engine rules, and reports the values the properties require that the engine's own
 * validation cannot see (a missing value reads as a default there). Field paths are relative to
 * the kind: {@code flow[0].count}; prefix them with {@code weir.} for configuration.
 */
public final class RuleProperties {

  private RuleProperties() {
  }

  /** Returns the engine rules of the given property lists, rule {@code i} of each list at index {@code i}. */
  public static RuleSet toRuleSet(List<WeirProperties.Flow> flow, List<WeirProperties.Degrade> degrade,
      List<WeirProperties.ParamFlow> paramFlow, List<WeirProperties.Authority> authority) {
    return new RuleSet(
        flow.stream().map(WeirProperties.Flow::toRule).toList(),
        degrade.stream().map(WeirProperties.Degrade::toRule).toList(),
        paramFlow.stream().map(WeirProperties.ParamFlow::toRule).toList(),
        authority.stream().map(WeirProperties.Authority::toRule).toList());
  }

  /** Returns the engine rules of {@code properties}. */
  public static RuleSet toRuleSet(WeirProperties properties) {
    return toRuleSet(properties.getFlow(), properties.getDegrade(), properties.getParamFlow(),
        properties.getAuthority());
  }

  /**
   * Returns the required values that are missing: {@code flow[i].count}, {@code degrade[i].strategy},
   * {@code degrade[i].threshold}, {@code degrade[i].slow-call-threshold} (for slow-ratio),
   * {@code param-flow[i].count} and the value and count of each {@code param-flow[i].exceptions[j]}.
   */
  public static List<RuleViolation> required(List<WeirProperties.Flow> flow, List<WeirProperties.Degrade> degrade,
      List<WeirProperties.ParamFlow> paramFlow) {
    List<RuleViolation> out = new ArrayList<>();
    for (int i = 0; i < flow.size(); i++) {
      if (flow.get(i).getCount() == null) {
        out.add(new RuleViolation("flow[" + i + "].count", "is required: a number >= 0 (calls per interval for"
            + " grade qps, calls inside at once for grade threads; 0 refuses every call)"));
      }
    }
    for (int i = 0; i < degrade.size(); i++) {
      WeirProperties.Degrade rule = degrade.get(i);
      String at = "degrade[" + i + "].";
      if (rule.getStrategy() == null) {
        out.add(new RuleViolation(at + "strategy", "is required: slow-ratio, error-ratio or error-count"));
      }
      if (rule.getThreshold() == null) {
        out.add(new RuleViolation(at + "threshold",
            "is required: a ratio from 0 to 1 for slow-ratio and error-ratio, a number of errors for error-count"));
      }
      if (rule.getStrategy() == DegradeStrategy.SLOW_RATIO && rule.getSlowCallThreshold() == null) {
        out.add(new RuleViolation(at + "slow-call-threshold",
            "is required for strategy slow-ratio: calls slower than this are slow (e.g. 200ms)"));
      }
    }
    for (int i = 0; i < paramFlow.size(); i++) {
      WeirProperties.ParamFlow rule = paramFlow.get(i);
      String at = "param-flow[" + i + "].";
      if (rule.getCount() == null) {
        out.add(new RuleViolation(at + "count", "is required: a number >= 0 per argument value"));
      }
      for (int j = 0; j < rule.getExceptions().size(); j++) {
        WeirProperties.ParamFlowException exception = rule.getExceptions().get(j);
        if (exception.getValue() == null) {
          out.add(new RuleViolation(at + "exceptions[" + j + "].value", "is required: the argument value as text"));
        }
        if (exception.getCount() == null) {
          out.add(new RuleViolation(at + "exceptions[" + j + "].count", "is required: a number >= 0"));
        }
      }
    }
    return out;
  }

  /** Returns the required values missing in {@code properties}. */
  public static List<RuleViolation> required(WeirProperties properties) {
    return required(properties.getFlow(), properties.getDegrade(), properties.getParamFlow());
  }
}
