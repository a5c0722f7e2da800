package dev.weir.spring.autoconfigure;

import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.RuleViolation;
import dev.weir.rule.SystemRuleValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Checks of {@link WeirProperties} that the engine does not make itself: settings of the engine,
 * required values, the system rule and the cluster settings. Every problem is named by its full
 * property path.
 */
final class PropertiesCheck {

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
   * Returns the problems the engine does not check: required values, the system rule and the
   * cluster settings.
   */
  static List<RuleViolation> others(WeirProperties properties) {
    List<RuleViolation> out = new ArrayList<>();
    for (RuleViolation violation : RuleProperties.required(properties)) {
      out.add(violation.under("weir."));
    }
    for (RuleViolation violation : SystemRuleValidator.validate(properties.getSystem().toRule())) {
      out.add(violation.under("weir.system."));
    }
    cluster(properties.getCluster(), out);
    return out;
  }

  private static void cluster(WeirProperties.Cluster cluster, List<RuleViolation> out) {
    String prefix = cluster.getKeyPrefix();
    if (prefix == null || prefix.isBlank() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      out.add(new RuleViolation("weir.cluster.key-prefix", "must be non-blank and without braces (Weir adds the "
          + "hash tag), was '" + prefix + "'"));
    }
    positive("weir.cluster.timeout", cluster.getTimeout(), ClusterOptions.MAX_TIMEOUT, "1m", out);
    positive("weir.cluster.open-duration", cluster.getOpenDuration(), ClusterOptions.MAX_OPEN_DURATION, "1d", out);
    if (cluster.getFallback() == null) {
      out.add(new RuleViolation("weir.cluster.fallback", "must be local, allow or deny"));
    }
    if (cluster.getFailureThreshold() < 1) {
      out.add(new RuleViolation("weir.cluster.failure-threshold", "must be at least 1, was "
          + cluster.getFailureThreshold()));
    }
    if (cluster.getMaxInFlight() < 1) {
      out.add(new RuleViolation("weir.cluster.max-in-flight", "must be at least 1, was " + cluster.getMaxInFlight()));
    }
  }

  private static void positive(String path, @Nullable Duration value, Duration max, String maxText,
      List<RuleViolation> out) {
    if (value == null || value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
      out.add(new RuleViolation(path, "must be a positive duration up to " + maxText + ", was " + value));
    }
  }

  /** Returns {@code violations} of a rule set ({@code flow[0].count}) named by their property path. */
  static List<RuleViolation> underWeir(List<RuleViolation> violations) {
    return violations.stream().map(violation -> violation.under("weir.")).toList();
  }


}
