package dev.weir;

import dev.weir.spi.SlotOrder;
import java.lang.reflect.Array;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * Applies the resource's hot-parameter rules to the call's arguments. A collection or array
 * argument (or key) takes a permit for each element; the call passes only if every element does
 * (permits taken before a refusal are refunded by the engine). A null key is decided by the rule's
 * {@code null-key}: not limited ({@code allow}), refused ({@code deny}), or counted under the rule's
 * one shared null key ({@code shared}).
 *
 * <p>A rule in shadow mode asks its limiters without waiting. Where it would refuse the call (at
 * one element), it gives back what it took for the earlier elements of the call, as the engine
 * would after a real refusal, checks no further element, counts a shadow refusal, and lets the
 * call go on to the next rule.
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
      if (argument == ParamFlowRuleState.ABSENT) {
        continue;
      }
      waits |= state.waits();
      int mark = entry.heldCount;
      BlockException refused = checkArgument(entry, state, argument);
      if (refused != null) {
        ShadowRefusals shadow = state.shadow;
        if (shadow == null) {
          return refused;
        }
        entry.refundHeldFrom(mark);
        shadow.refused(entry);
      }
    }
    if (waits) {
      entry.startNanos = clock.read();
    }
    return null;
  }

  /** Checks every element of {@code argument} (or the argument itself); the refusal of the first refused one. */
  private static @Nullable BlockException checkArgument(Frame entry, ParamFlowRuleState state,
      @Nullable Object argument) {
    if (!ParamFlowRuleState.isMany(argument)) {
      return check(entry, state, argument);
    }
    BlockException refused;
    if (argument instanceof Collection<?> elements) {
      for (Object element : elements) {
        if ((refused = check(entry, state, element)) != null) {
          return refused;
        }
      }
    } else {
      int length = Array.getLength(argument);
      for (int i = 0; i < length; i++) {
        if ((refused = check(entry, state, Array.get(argument, i))) != null) {
          return refused;
        }
      }
    }
    return null;
  }

  private static @Nullable BlockException check(Frame entry, ParamFlowRuleState state, @Nullable Object value) {
    Object key = state.counted(value);
    if (key == null) {
      return null;
    }
    if (key == ParamFlowRuleState.DENIED) {
      return new ParamFlowException(entry.resource, state.rule, 0);
    }
    FlowLimiter limiter = state.limiterFor(key);
    long result = state.shadow == null ? limiter.tryAcquire(entry.acquireCount, entry.startNanos)
        : limiter.tryAcquireWithoutWaiting(entry.acquireCount, entry.startNanos);
    if (result < 0) {
      return new ParamFlowException(entry.resource, state.rule, FlowLimiter.retryAfterNanos(result));
    }
    entry.hold(limiter, result);
    return null;
  }
}
