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
  private final Limiters limiters;
  private final Map<String, Double> exceptionCounts = new HashMap<>();
  private final BoundedLru<Object, FlowLimiter> byValue;

  ParamFlowRuleState(ParamFlowRule rule, Limiters limiters) {
    this.rule = rule;
    this.limiters = limiters;
    for (ParamFlowItem item : rule.exceptions()) {
      exceptionCounts.put(item.value(), item.count());
    }
    this.byValue = new BoundedLru<>(ParamFlowRule.MAX_TRACKED_VALUES);
  }

  boolean waits() {
    return rule.grade() == FlowGrade.QPS && rule.controlBehavior() == ControlBehavior.QUEUE;
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
