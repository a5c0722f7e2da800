package dev.weir.internal.call;

import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.RuleKind;
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
public final class ParamFlowSlot extends Slot {

  private final EngineClock clock;

  public ParamFlowSlot(EngineClock clock) {
    super(SlotOrder.PARAM_FLOW, ENTRY);
    this.clock = clock;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return rules.paramFlow.length > 0;
  }

  @Override
  boolean entry(Call call) {
    boolean waits = false;
    for (ParamFlowRuleState state : call.rules.paramFlow) {
      Object argument = state.argument(call.args);
      if (argument == ParamFlowRuleState.ABSENT) {
        continue;
      }
      waits |= state.waits();
      int mark = call.heldCount;
      if (!checkArgument(call, state, argument)) {
        ShadowRefusals shadow = state.shadow;
        if (shadow == null) {
          return false;
        }
        call.forgetRefusal();
        call.refundHeldFrom(mark);
        call.goesOnInShadow(shadow);
      }
    }
    if (waits) {
      call.startNanos = clock.readFresh(); // a queued call's response time starts when its slot comes
    }
    return true;
  }

  /** Checks every element of {@code argument} (or the argument itself); false at the first refused one. */
  private static boolean checkArgument(Call call, ParamFlowRuleState state, @Nullable Object argument) {
    if (!ParamFlowRuleState.isMany(argument)) {
      return check(call, state, argument);
    }
    if (argument instanceof Collection<?> elements) {
      for (Object element : elements) {
        if (!check(call, state, element)) {
          return false;
        }
      }
    } else {
      int length = Array.getLength(argument);
      for (int i = 0; i < length; i++) {
        if (!check(call, state, Array.get(argument, i))) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean check(Call call, ParamFlowRuleState state, @Nullable Object value) {
    Object key = state.counted(value);
    if (key == null) {
      return true;
    }
    if (key == ParamFlowRuleState.DENIED) {
      return call.refuseMissingKey(state.rule);
    }
    FlowLimiter limiter = state.limiterFor(key);
    long result = state.shadow == null ? limiter.tryAcquire(call.acquireCount, call.startNanos)
        : limiter.tryAcquireWithoutWaiting(call.acquireCount, call.startNanos);
    if (result < 0) {
      return call.refuse(RuleKind.PARAM_FLOW, state.rule, FlowLimiter.retryAfterNanos(result));
    }
    call.hold(limiter, result);
    return true;
  }
}
