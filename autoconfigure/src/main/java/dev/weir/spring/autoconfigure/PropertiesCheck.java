package dev.weir.spring.autoconfigure;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleViolation;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Checks of {@link WeirProperties} that the engine does not make itself: settings of the engine,
 * required values, and the kinds of configuration this version does not support. Every problem is
 * named by its full property path.
 */
final class PropertiesCheck {

  private static final String NOT_SUPPORTED = " not supported by this version of Weir, which enforces flow rules"
      + " only; remove ";

  private PropertiesCheck() {
  }

  /** Returns the problems of the engine settings, which must be right before an engine is built. */
  static List<RuleViolation> settings(WeirProperties properties) {
    List<RuleViolation> out = new ArrayList<>();
    if (properties.getMaxResources() < 1) {
      out.add(new RuleViolation("weir.max-resources", "must be at least 1, was " + properties.getMaxResources()));
    }
    int sampleCount = properties.getStatistics().getSampleCount();
    if (sampleCount < 1 || sampleCount > 1000 || 1_000_000_000 % sampleCount != 0) {
      out.add(new RuleViolation("weir.statistics.sample-count",
          "must be between 1 and 1000 and divide 1000000000 (1, 2, 4, 5, 10, 20, ...), was " + sampleCount));
    }
    return out;
  }

  /** Returns the problems the engine does not check: required values and unsupported kinds. */
  static List<RuleViolation> others(WeirProperties properties) {
    List<RuleViolation> out = new ArrayList<>();
    List<WeirProperties.Flow> flow = properties.getFlow();
    for (int i = 0; i < flow.size(); i++) {
      if (flow.get(i).getCount() == null) {
        out.add(new RuleViolation("weir.flow[" + i + "].count",
            "is required: a number >= 0 (calls per interval for grade qps, calls inside at once for grade threads;"
                + " 0 refuses every call)"));
      }
    }
    unsupportedList(out, "weir.degrade", "degrade rules (circuit breakers) are", properties.getDegrade());
    unsupportedList(out, "weir.param-flow", "param-flow rules (hot-parameter limits) are", properties.getParamFlow());
    unsupportedList(out, "weir.authority", "authority rules are", properties.getAuthority());
    WeirProperties.SystemLimits system = properties.getSystem();
    unsupportedValue(out, "weir.system.max-qps", system.getMaxQps());
    unsupportedValue(out, "weir.system.max-threads", system.getMaxThreads());
    unsupportedValue(out, "weir.system.max-avg-rt", system.getMaxAvgRt());
    unsupportedValue(out, "weir.system.max-load", system.getMaxLoad());
    unsupportedValue(out, "weir.system.max-cpu-usage", system.getMaxCpuUsage());
    if (properties.getCluster().isEnabled()) {
      out.add(new RuleViolation("weir.cluster.enabled", "cluster mode is" + NOT_SUPPORTED
          + "weir.cluster.enabled or set it to false"));
    }
    return out;
  }

  /** Returns the flow rules, in the order of {@code weir.flow}: rule {@code i} is {@code weir.flow[i]}. */
  static List<FlowRule> flowRules(WeirProperties properties) {
    return properties.getFlow().stream().map(WeirProperties.Flow::toRule).toList();
  }

  /** Returns {@code violations} of a list of flow rules named by their full property path. */
  static List<RuleViolation> underFlow(List<RuleViolation> violations) {
    return violations.stream().map(violation -> violation.under("weir.flow")).toList();
  }

  private static void unsupportedList(List<RuleViolation> out, String property, String what, List<?> values) {
    if (!values.isEmpty()) {
      out.add(new RuleViolation(property + "[0]", what + NOT_SUPPORTED + property));
    }
  }

  private static void unsupportedValue(List<RuleViolation> out, String property, @Nullable Object value) {
    if (value != null) {
      out.add(new RuleViolation(property, "system rules are" + NOT_SUPPORTED + property));
    }
  }
}
