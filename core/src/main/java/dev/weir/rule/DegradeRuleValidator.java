package dev.weir.rule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks circuit-breaker rules; see {@link FlowRuleValidator} for the form of the result. Every
 * duration is whole milliseconds within bounds, so none can overflow nanoseconds (see
 * {@link RuleBounds}): {@code stat-interval} from 10 ms to 1 hour (it has ten buckets),
 * {@code slow-call-threshold} from 1 ms to 1 hour (slow-ratio only), {@code open-duration} from
 * 1 ms to 1 day. A count-based {@code window} holds 1 to {@link DegradeRule#MAX_WINDOW_CALLS} calls,
 * at least {@code min-request-amount}.
 */
final class DegradeRuleValidator {

  private DegradeRuleValidator() {
  }

  /** Returns every problem of {@code rules}; fields are prefixed with the rule's index. */
  static List<RuleViolation> validate(List<DegradeRule> rules) {
    return Checks.each(rules, DegradeRuleValidator::validate);
  }

  /** Returns every problem of one rule. */
  static List<RuleViolation> validate(DegradeRule rule) {
    List<RuleViolation> out = new ArrayList<>();
    Checks.resource(rule.resource(), out);
    double threshold = rule.threshold();
    if (Double.isNaN(threshold)) {
      out.add(new RuleViolation("threshold", "is required"));
    } else if (rule.strategy() == DegradeStrategy.ERROR_COUNT) {
      Checks.count("threshold", threshold, Integer.MAX_VALUE, out);
    } else if (!(threshold >= 0 && threshold <= 1)) {
      out.add(new RuleViolation("threshold", "must be a ratio from 0 to 1 for strategy "
          + Checks.name(rule.strategy()) + ", was " + threshold));
    }
    if (rule.strategy() == DegradeStrategy.SLOW_RATIO) {
      Checks.wholeMillis("slow-call-threshold", rule.slowCallThreshold(), Duration.ofMillis(1), Duration.ofHours(1), out);
    } else if (!rule.slowCallThreshold().equals(DegradeRule.DEFAULT_SLOW_CALL_THRESHOLD)) {
      out.add(new RuleViolation("slow-call-threshold", "applies to strategy slow-ratio only"));
    }
    if (rule.minRequestAmount() < 1) {
      out.add(new RuleViolation("min-request-amount", "must be at least 1, was " + rule.minRequestAmount()));
    }
    Checks.wholeMillis("stat-interval", rule.statInterval(), Duration.ofMillis(10), Duration.ofHours(1), out);
    int calls = rule.windowCalls();
    if (calls < 0 || calls > DegradeRule.MAX_WINDOW_CALLS) {
      out.add(new RuleViolation("window", "must be \"<N> calls\" with N from 1 to " + DegradeRule.MAX_WINDOW_CALLS
          + (calls < 0 ? "" : ", was " + calls + " calls")));
    } else if (calls > 0 && rule.minRequestAmount() > calls) {
      out.add(new RuleViolation("min-request-amount", "must be at most the window's " + calls
          + " calls (the breaker could never judge), was " + rule.minRequestAmount()));
    }
    Checks.wholeMillis("open-duration", rule.openDuration(), Duration.ofMillis(1), Duration.ofDays(1), out);
    return out;
  }
}
