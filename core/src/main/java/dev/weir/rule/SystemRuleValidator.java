package dev.weir.rule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the system rule; fields are named as in YAML ({@code max-cpu-usage}). {@code max-avg-rt}
 * is a positive duration up to 1 hour (see {@link RuleBounds}).
 */
final class SystemRuleValidator {

  private SystemRuleValidator() {
  }

  /** Returns every problem of {@code rule}. */
  static List<RuleViolation> validate(SystemRule rule) {
    List<RuleViolation> out = new ArrayList<>();
    if (rule.maxQps() != null) {
      Checks.count("max-qps", rule.maxQps(), Double.MAX_VALUE, out);
    }
    if (rule.maxThreads() != null && rule.maxThreads() < 0) {
      out.add(new RuleViolation("max-threads", "must be >= 0, was " + rule.maxThreads()));
    }
    if (rule.maxAvgRt() != null && (rule.maxAvgRt().isNegative() || rule.maxAvgRt().isZero())) {
      out.add(new RuleViolation("max-avg-rt", "must be a positive duration, was " + rule.maxAvgRt()));
    } else if (rule.maxAvgRt() != null) {
      Checks.within("max-avg-rt", rule.maxAvgRt(), Duration.ZERO, RuleBounds.MAX_AVG_RT, out);
    }
    if (rule.maxLoad() != null && !(rule.maxLoad() > 0) || rule.maxLoad() != null && rule.maxLoad().isInfinite()) {
      out.add(new RuleViolation("max-load", "must be a number > 0, was " + rule.maxLoad()));
    }
    if (rule.maxCpuUsage() != null && !(rule.maxCpuUsage() > 0 && rule.maxCpuUsage() <= 1)) {
      out.add(new RuleViolation("max-cpu-usage", "must be a fraction in (0, 1], was " + rule.maxCpuUsage()));
    }
    return out;
  }
}
