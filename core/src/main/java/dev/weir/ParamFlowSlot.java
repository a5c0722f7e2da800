package dev.weir;

import dev.weir.spi.SlotOrder;
import java.lang.reflect.Array;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * Applies the resource's hot-parameter rules to the call's arguments. A collection or array
 * argument takes a permit for each element; the call passes only if every element does (permits
 * taken before a refusal are refunded by the engine).
 */
final class ParamFlowSlot extends Slot {

  private final EngineClock clock;

  ParamFlowSlot(EngineClock clock) {
    super(SlotOrder.PARAM_FLOW, ENTRY);
    this.clock = clock;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return rules.paramFlow.length > 0;
  }

  @Override
  @Nullable BlockException entry(Frame entry) {
    boolean waits = false;
    for (ParamFlowRuleState state : entry.rules.paramFlow) {
      Object argument = state.argument(entry.args);
      if (argument == null) {
        continue;
      }
      waits |= state.waits();
      BlockException refused;
      if (argument instanceof Collection<?> elements) {
        for (Object element : elements) {
          if ((refused = check(entry, state, element)) != null) {
            return refused;
          }
        }
      } else if (argument.getClass().isArray()) {
        int length = Array.getLength(argument);
        for (int i = 0; i < length; i++) {
          if ((refused = check(entry, state, Array.get(argument, i))) != null) {
            return refused;
          }
        }
      } else if ((refused = check(entry, state, argument)) != null) {
        return refused;
      }
    }
    if (waits) {
      entry.startNanos = clock.read();
    }
    return null;
  }

  private static @Nullable BlockException check(Frame entry, ParamFlowRuleState state, @Nullable Object value) {
    Object key = value instanceof ParamFlowKey custom ? custom.paramFlowKey() : value;
    if (key == null) {
      return null;
    }
    FlowLimiter limiter = state.limiterFor(key);
    long result = limiter.tryAcquire(entry.acquireCount, entry.startNanos);
    if (result < 0) {
      return new ParamFlowException(entry.resource, state.rule, FlowLimiter.retryAfterNanos(result));
    }
    entry.hold(limiter, result);
    return null;
  }
}
