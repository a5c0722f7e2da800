package dev.weir.rule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks hot-parameter rules; see {@link FlowRuleValidator} for the form of the result.
 *
 * <p>Bounds of the name, durations and rates (see {@link RuleBounds} for why these values):
 * <ul>
 *   <li>{@code name}, when set: what {@link RuleNames} allows, since it is sent in HTTP headers;
 *   <li>{@code duration} whole milliseconds from 1 ms to 1 day;
 *   <li>{@code max-queueing-time} from 0 to 1 hour, and not 0 only with control-behavior queue;
 *   <li>grade qps: a value's permits are {@code duration / count} apart (the emission interval of
 *       its token bucket, or its queue spacing), at most 1 day, for {@code count} and for the count
 *       of every entry of {@code exceptions}; a count of 0 refuses every call of the value.
 * </ul>
 */
final class ParamFlowRuleValidator {

  private static final String EMISSION = "the permits of a value (duration / count)";

  private ParamFlowRuleValidator() {
  }

  /** Returns every problem of {@code rules}; fields are prefixed with the rule's index. */
  static List<RuleViolation> validate(List<ParamFlowRule> rules) {
    return Checks.each(rules, ParamFlowRuleValidator::validate);
  }

  /** Returns every problem of one rule. */
  static List<RuleViolation> validate(ParamFlowRule rule) {
    List<RuleViolation> out = new ArrayList<>();
    Checks.resource(rule.resource(), out);
    RuleNames.check(rule.name(), out);
    if (rule.key() != null && rule.paramIndex() != 0) {
      out.add(new RuleViolation("param-index", "is not used with key: give one of them"));
    }
    boolean threads = rule.grade() == FlowGrade.THREADS;
    if (rule.grade() == FlowGrade.ADAPTIVE) {
      out.add(new RuleViolation("grade", "must be qps or threads; adaptive applies to flow rules only"));
    }
    Checks.count("count", rule.count(), Integer.MAX_VALUE, out);
    if (threads && rule.count() != Math.rint(rule.count())) {
      out.add(new RuleViolation("count", "must be a whole number for grade threads, was " + rule.count()));
    }
    ControlBehavior behavior = rule.controlBehavior();
    if (behavior != ControlBehavior.REJECT && behavior != ControlBehavior.QUEUE) {
      out.add(new RuleViolation("control-behavior", "must be reject or queue, was " + Checks.name(behavior)));
    }
    boolean paced = false;
    if (threads) {
      if (behavior != ControlBehavior.REJECT) {
        out.add(new RuleViolation("control-behavior", "must be reject for grade threads"));
      }
      if (!rule.duration().equals(Duration.ofSeconds(1))) {
        out.add(new RuleViolation("duration", "applies to grade qps only"));
      }
    } else {
      paced = Checks.wholeMillis("duration", rule.duration(), Duration.ofMillis(1), Duration.ofDays(1), out);
      if (paced) {
        Checks.spacing("count", rule.count(), rule.duration(), 1, EMISSION, out);
      }
    }
    if (rule.burst() < 0) {
      out.add(new RuleViolation("burst", "must be >= 0, was " + rule.burst()));
    } else if (rule.burst() > 0 && (threads || behavior == ControlBehavior.QUEUE)) {
      out.add(new RuleViolation("burst", "applies to grade qps with control-behavior reject only"));
    }
    boolean queueingValid = Checks.within("max-queueing-time", rule.maxQueueingTime(), Duration.ZERO,
        RuleBounds.MAX_QUEUEING_TIME, out);
    if (queueingValid && !rule.maxQueueingTime().isZero() && behavior != ControlBehavior.QUEUE) {
      out.add(new RuleViolation("max-queueing-time", "applies to control-behavior queue only"));
    }
    Set<String> values = new HashSet<>();
    for (int i = 0; i < rule.exceptions().size(); i++) {
      ParamFlowItem item = rule.exceptions().get(i);
      String at = "exceptions[" + i + "]";
      if (item == null || item.value() == null) {
        out.add(new RuleViolation(at + ".value", "is required"));
        continue;
      }
      if (!Checks.name(at + ".value", item.value(), out)) {
        continue;
      }
      if (!values.add(item.value())) {
        out.add(new RuleViolation(at + ".value", "'" + item.value() + "' is listed twice"));
      }
      if (Checks.count(at + ".count", item.count(), Integer.MAX_VALUE, out) && paced) {
        Checks.spacing(at + ".count", item.count(), rule.duration(), 1, EMISSION, out);
      }
    }
    return out;
  }
}
