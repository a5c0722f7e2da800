package dev.weir.spring.autoconfigure;

import dev.weir.rule.RuleViolation;
import dev.weir.rule.SystemRuleValidator;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks of {@link WeirProperties} that the engine does not make itself: settings of the engine,
 * required values, the system rule, and cluster mode, which this version does not support. Every
 * problem is named by its full property path.
 */
final class PropertiesCheck {

  private static final String NOT_SUPPORTED = " not supported by this version of Weir; remove ";

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

  /**
   * Returns the problems the engine does not check: required values, the system rule, and cluster
   * mode, which this version does not support.
   */
  static List<RuleViolation> others(WeirProperties properties) {
    List<RuleViolation> out = new ArrayList<>();
    for (RuleViolation violation : RuleProperties.required(properties)) {
      out.add(violation.under("weir."));
    }
    for (RuleViolation violation : SystemRuleValidator.validate(properties.getSystem().toRule())) {
      out.add(violation.under("weir.system."));
    }
    if (properties.getCluster().isEnabled()) {
      out.add(new RuleViolation("weir.cluster.enabled", "cluster mode is" + NOT_SUPPORTED
          + "weir.cluster.enabled or set it to false"));
    }
    return out;
  }

  /** Returns {@code violations} of a rule set ({@code flow[0].count}) named by their property path. */
  static List<RuleViolation> underWeir(List<RuleViolation> violations) {
    return violations.stream().map(violation -> violation.under("weir.")).toList();
  }


}
