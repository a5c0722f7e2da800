package dev.weir;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One hot-parameter rule with a limiter per argument value, in a {@link BoundedLru} of
 * {@link ParamFlowRule#MAX_TRACKED_VALUES} values: memory stays bounded whatever the number of
 * distinct values. An evicted value starts afresh; for {@code threads} a call still inside when its
 * value is evicted releases the old limiter, so nothing leaks, but the new one starts at zero.
 */
final class ParamFlowRuleState {

  final ParamFlowRule rule;
  /** Non-null when the rule is in shadow mode: then it counts what it would refuse, and never waits. */
  final @Nullable ShadowRefusals shadow;
  private final Limiters limiters;
  private final Map<String, Double> exceptionCounts;
  private final BoundedLru<Object, FlowLimiter> byValue;

  ParamFlowRuleState(ParamFlowRule rule, Limiters limiters) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.limiters = limiters;
    this.exceptionCounts = new HashMap<>();
    for (ParamFlowItem item : rule.exceptions()) {
      exceptionCounts.put(item.value(), item.count());
    }
    this.byValue = new BoundedLru<>(ParamFlowRule.MAX_TRACKED_VALUES);
  }

  /** The state of {@code rule}, which differs from {@code twin}'s rule in {@code shadow} only: the same limiters. */
  ParamFlowRuleState(ParamFlowRule rule, ParamFlowRuleState twin) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.limiters = twin.limiters;
    this.exceptionCounts = twin.exceptionCounts;
    this.byValue = twin.byValue;
  }

  /** Whether the rule may make a call wait: a queueing rule in force (in shadow mode, calls never wait). */
  boolean waits() {
    return shadow == null && rule.grade() == FlowGrade.QPS && rule.controlBehavior() == ControlBehavior.QUEUE;
  }

  /** The argument this rule looks at, or null when the call has no such argument. */
  @Nullable Object argument(Object[] args) {
    int index = rule.paramIndex() < 0 ? args.length + rule.paramIndex() : rule.paramIndex();
    return index >= 0 && index < args.length ? args[index] : null;
  }

  FlowLimiter limiterFor(Object key) {
    return byValue.get(key, this::newLimiter);
  }

  int trackedValues() {
    return byValue.size();
  }

  private FlowLimiter newLimiter(Object key) {
    return limiters.forParamValue(rule, exceptionCounts.getOrDefault(String.valueOf(key), rule.count()));
  }
}
