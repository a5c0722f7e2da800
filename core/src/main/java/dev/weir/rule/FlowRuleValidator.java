package dev.weir.rule;

import dev.weir.cluster.ClusterLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks flow rules and reports every problem with the field it concerns, named as in YAML
 * ({@code [0].count}, {@code [1].ref-resource}). An empty result means the rules are valid.
 *
 * <p>Bounds and why they exist:
 * <ul>
 *   <li>{@code name}, when set: what {@link RuleNames} allows, since it is sent in HTTP headers.
 *   <li>{@code count} at most {@value #MAX_COUNT}: a rule's window keeps 31-bit counts per bucket.
 *   <li>{@code interval} whole milliseconds between 1 ms and 1 day: the window has ten buckets of
 *       {@code interval / 10}.
 *   <li>{@code exact}: integral {@code count} up to {@link FlowRule#EXACT_MAX_COUNT}, since it keeps
 *       one timestamp per permit; with {@code cluster-mode} up to {@link ClusterLimit#EXACT_MAX_COUNT},
 *       since the store keeps one entry per admission and trims them in one atomic step.
 *   <li>queue and warm-up behaviors: at most 10<sup>9</sup> admissions per second (pacing is in
 *       nanoseconds), and at most 1 day between two admissions: {@code interval / count}, and for
 *       warm-up behaviors {@code interval * cold-factor / count} (the cold end), so a count such
 *       as {@code 1e-10} cannot overflow the schedule. A count of 0 refuses every call and is fine.
 *   <li>{@code max-queueing-time} from 0 to 1 hour, and {@code warm-up-period} up to 1 day (at
 *       least 1 ms for the warm-up behaviors). Both are checked whatever the behavior, so no
 *       duration of a valid rule can overflow nanoseconds; see {@link RuleBounds} for why these
 *       values.
 *   <li>grade threads: {@code max-queueing-count} from 0 (for {@code count}) to
 *       {@link FlowRule#MAX_QUEUEING_COUNT}, and only with a {@code max-queueing-time} above 0.
 *   <li>grade adaptive: {@code 1 <= min-limit <= initial-limit <= max-limit <=}
 *       {@value FlowRule#MAX_ADAPTIVE_LIMIT} ({@code initial-limit} 0 for its default); no
 *       {@code count} (the limit is measured, not given), control-behavior reject only (a call is
 *       admitted or refused at once: a queue in front of a concurrency limit hides the latency the
 *       limit follows), no {@code exact} nor {@code interval}, no {@code cluster-mode} (a
 *       concurrency limit is one instance's), no strategy related (it limits calls inside this
 *       resource, measured by their own latency), no {@code limit-app: other} (a limit per origin
 *       would let every caller take the whole capacity; criticality decides who is shed). The
 *       three limits apply to grade adaptive only.
 * </ul>
 */
final class FlowRuleValidator {

  /** Largest {@code count} of any flow rule. */
  static final double MAX_COUNT = Integer.MAX_VALUE;

  private static final Duration MAX_INTERVAL = Duration.ofDays(1);
  private static final double MAX_PACED_PER_SECOND = 1e9;

  private FlowRuleValidator() {
  }

  /** Returns every problem of {@code rules}; fields are prefixed with the rule's index. */
  static List<RuleViolation> validate(List<FlowRule> rules) {
    return Checks.each(rules, FlowRuleValidator::validate);
  }

  /** Returns every problem of one rule; fields are named without an index ({@code count}). */
  static List<RuleViolation> validate(FlowRule rule) {
    List<RuleViolation> out = new ArrayList<>();
    Checks.resource(rule.resource(), out);
    RuleNames.check(rule.name(), out);
    Checks.count("count", rule.count(), MAX_COUNT, out);
    if (rule.grade() == FlowGrade.THREADS) {
      validateThreads(rule, out);
    } else if (rule.grade() == FlowGrade.ADAPTIVE) {
      validateAdaptive(rule, out);
    } else {
      validateQps(rule, out);
    }
    if (rule.grade() != FlowGrade.ADAPTIVE) {
      if (rule.minLimit() != FlowRule.DEFAULT_MIN_LIMIT) {
        out.add(new RuleViolation("min-limit", "applies to grade adaptive only"));
      }
      if (rule.maxLimit() != FlowRule.DEFAULT_MAX_LIMIT) {
        out.add(new RuleViolation("max-limit", "applies to grade adaptive only"));
      }
      if (rule.initialLimit() != 0) {
        out.add(new RuleViolation("initial-limit", "applies to grade adaptive only"));
      }
    }
    validateDurations(rule, out);
    validateStrategy(rule, out);
    if (rule.limitApp().isBlank()) {
      out.add(new RuleViolation("limit-app", "must be 'default', 'other' or an origin name"));
    } else {
      Checks.name("limit-app", rule.limitApp(), out);
    }
    if (rule.grade() != FlowGrade.THREADS && rule.maxQueueingCount() != 0) {
      out.add(new RuleViolation("max-queueing-count", "applies to grade threads only"));
    }
    if (rule.clusterMode() && rule.grade() != FlowGrade.QPS) {
      out.add(new RuleViolation("cluster-mode", "applies to grade qps only; a concurrency limit cannot be shared"));
    }
    return out;
  }

  private static void validateAdaptive(FlowRule rule, List<RuleViolation> out) {
    if (rule.count() != 0) {
      out.add(new RuleViolation("count", "does not apply to grade adaptive (the limit is measured; bound it with"
          + " min-limit and max-limit), was " + rule.count()));
    }
    if (rule.controlBehavior() != ControlBehavior.REJECT) {
      out.add(new RuleViolation("control-behavior", "must be reject for grade adaptive, was "
          + Checks.name(rule.controlBehavior())));
    }
    if (rule.exact()) {
      out.add(new RuleViolation("exact", "applies to grade qps only"));
    }
    if (!rule.interval().equals(FlowRule.DEFAULT_INTERVAL)) {
      out.add(new RuleViolation("interval", "applies to grade qps only"));
    }
    if (rule.strategy() == FlowStrategy.RELATED) {
      out.add(new RuleViolation("strategy", "must be direct or chain for grade adaptive (it limits the calls of"
          + " this resource by their own latency)"));
    }
    if (FlowRule.LIMIT_APP_OTHER.equals(rule.limitApp())) {
      out.add(new RuleViolation("limit-app", "must be default or an origin name for grade adaptive (a limit per"
          + " origin would let every caller take the whole capacity; give calls a criticality instead)"));
    }
    int min = rule.minLimit();
    int max = rule.maxLimit();
    boolean minValid = min >= 1 && min <= FlowRule.MAX_ADAPTIVE_LIMIT;
    if (!minValid) {
      out.add(new RuleViolation("min-limit", "must be from 1 to " + FlowRule.MAX_ADAPTIVE_LIMIT + ", was " + min));
    }
    if (max < 1 || max > FlowRule.MAX_ADAPTIVE_LIMIT) {
      out.add(new RuleViolation("max-limit", "must be from 1 to " + FlowRule.MAX_ADAPTIVE_LIMIT + ", was " + max));
    } else if (minValid && max < min) {
      out.add(new RuleViolation("max-limit", "must be at least min-limit (" + min + "), was " + max));
    }
    int initial = rule.initialLimit();
    if (initial != 0 && (initial < Math.max(1, min) || initial > max)) {
      out.add(new RuleViolation("initial-limit", "must be from min-limit to max-limit (" + min + " to " + max
          + "), or 0 for the default, was " + initial));
    }
  }

  private static void validateThreads(FlowRule rule, List<RuleViolation> out) {
    if (rule.controlBehavior() != ControlBehavior.REJECT) {
      out.add(new RuleViolation("control-behavior", "must be reject for grade threads, was " + Checks.name(rule.controlBehavior())));
    }
    if (rule.exact()) {
      out.add(new RuleViolation("exact", "applies to grade qps only"));
    }
    if (!rule.interval().equals(FlowRule.DEFAULT_INTERVAL)) {
      out.add(new RuleViolation("interval", "applies to grade qps only"));
    }
    if (rule.count() != Math.rint(rule.count())) {
      out.add(new RuleViolation("count", "must be a whole number for grade threads, was " + rule.count()));
    }
    int waiting = rule.maxQueueingCount();
    if (waiting < 0 || waiting > FlowRule.MAX_QUEUEING_COUNT) {
      out.add(new RuleViolation("max-queueing-count", "must be from 0 (for count) to " + FlowRule.MAX_QUEUEING_COUNT
          + ", was " + waiting));
    } else if (waiting != 0 && rule.maxQueueingTime().isZero()) {
      out.add(new RuleViolation("max-queueing-count", "needs a max-queueing-time above 0 (calls over the limit"
          + " wait only with one)"));
    }
  }

  private static void validateQps(FlowRule rule, List<RuleViolation> out) {
    Duration interval = rule.interval();
    boolean intervalValid = !interval.isNegative() && interval.compareTo(Duration.ofMillis(1)) >= 0
        && interval.compareTo(MAX_INTERVAL) <= 0 && interval.toNanos() % 1_000_000 == 0;
    if (!intervalValid) {
      out.add(new RuleViolation("interval", "must be whole milliseconds from 1ms to 1d, was " + interval));
    }
    ControlBehavior behavior = rule.controlBehavior();
    if (rule.exact()) {
      if (behavior != ControlBehavior.REJECT) {
        out.add(new RuleViolation("exact", "needs control-behavior reject, was " + Checks.name(behavior)));
      }
      if (rule.strategy() == FlowStrategy.RELATED) {
        out.add(new RuleViolation("exact", "does not apply to strategy related"));
      }
      if (rule.clusterMode() && rule.count() > ClusterLimit.EXACT_MAX_COUNT && rule.count() == Math.rint(rule.count())) {
        out.add(new RuleViolation("count", "must be at most " + ClusterLimit.EXACT_MAX_COUNT
            + " with exact: true and cluster-mode: true (the store logs one entry per admission), was "
            + rule.count()));
      } else if (rule.count() > FlowRule.EXACT_MAX_COUNT || rule.count() != Math.rint(rule.count())) {
        out.add(new RuleViolation("count", "must be a whole number up to " + FlowRule.EXACT_MAX_COUNT
            + " with exact: true (one timestamp is kept per permit), was " + rule.count()));
      }
    }
    boolean warmUp = behavior == ControlBehavior.WARM_UP || behavior == ControlBehavior.WARM_UP_QUEUE;
    boolean queue = behavior == ControlBehavior.QUEUE || behavior == ControlBehavior.WARM_UP_QUEUE;
    if (warmUp) {
      if (rule.coldFactor() < 2) {
        out.add(new RuleViolation("cold-factor", "must be at least 2, was " + rule.coldFactor()));
      }
    }
    if ((queue || warmUp) && intervalValid) {
      if (rule.count() / (interval.toNanos() / 1e9) > MAX_PACED_PER_SECOND) {
        out.add(new RuleViolation("count", "paces at most 1000000000 calls per second with control-behavior "
            + Checks.name(behavior)));
      }
      double factor = warmUp ? Math.max(1, rule.coldFactor()) : 1;
      Checks.spacing("count", rule.count(), interval, factor, "calls (interval" + (warmUp ? " * cold-factor" : "")
          + " / count) with control-behavior " + Checks.name(behavior), out);
    }
    if (rule.clusterMode() && behavior != ControlBehavior.REJECT) {
      out.add(new RuleViolation("cluster-mode", "supports control-behavior reject only, was " + Checks.name(behavior)));
    }
    if (rule.clusterMode() && intervalValid && interval.toMillis() % ClusterLimit.BUCKETS != 0) {
      out.add(new RuleViolation("interval", "must be a multiple of " + ClusterLimit.BUCKETS
          + "ms with cluster-mode (the shared window has " + ClusterLimit.BUCKETS + " buckets of whole ms), was "
          + interval));
    }
  }

  /** Every duration, whatever the behavior: none may overflow nanoseconds in a valid rule. */
  private static void validateDurations(FlowRule rule, List<RuleViolation> out) {
    ControlBehavior behavior = rule.controlBehavior();
    boolean warmUp = behavior == ControlBehavior.WARM_UP || behavior == ControlBehavior.WARM_UP_QUEUE;
    Checks.within("warm-up-period", rule.warmUpPeriod(), warmUp ? Duration.ofMillis(1) : Duration.ZERO,
        RuleBounds.MAX_WARM_UP_PERIOD, out);
    Checks.within("max-queueing-time", rule.maxQueueingTime(), Duration.ZERO, RuleBounds.MAX_QUEUEING_TIME, out);
  }

  private static void validateStrategy(FlowRule rule, List<RuleViolation> out) {
    String ref = rule.refResource();
    boolean hasRef = ref != null && !ref.isBlank();
    if (hasRef && !Checks.name("ref-resource", ref, out)) {
      return;
    }
    switch (rule.strategy()) {
      case DIRECT -> {
        if (hasRef) {
          out.add(new RuleViolation("ref-resource", "applies to strategy related or chain only"));
        }
      }
      case RELATED -> {
        if (!hasRef) {
          out.add(new RuleViolation("ref-resource", "is required for strategy related (the other resource)"));
        } else if (ref.equals(rule.resource())) {
          out.add(new RuleViolation("ref-resource", "must name another resource than the rule's own"));
        }
        if (rule.controlBehavior() != ControlBehavior.REJECT) {
          out.add(new RuleViolation("control-behavior", "must be reject for strategy related, was "
              + Checks.name(rule.controlBehavior())));
        }
        if (rule.clusterMode()) {
          out.add(new RuleViolation("cluster-mode", "applies to strategy direct or chain only"));
        }
      }
      case CHAIN -> {
        if (!hasRef) {
          out.add(new RuleViolation("ref-resource", "is required for strategy chain (the context name)"));
        }
      }
    }
  }
}
