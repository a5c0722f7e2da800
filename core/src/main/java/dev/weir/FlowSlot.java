package dev.weir;

import dev.weir.spi.SlotOrder;
import org.jspecify.annotations.Nullable;

/**
 * Applies the resource's flow rules in order. Each applicable rule admits and counts atomically
 * through its {@link FlowLimiter}; the permits taken are remembered in the entry, and the engine
 * refunds them when any rule refuses the call, or releases them when it completes.
 */
final class FlowSlot extends Slot {

  private final EngineClock clock;

  FlowSlot(EngineClock clock) {
    super(SlotOrder.FLOW, ENTRY);
    this.clock = clock;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return !rules.flow.isEmpty();
  }

  @Override
  @Nullable BlockException entry(Frame entry) {
    FlowRuleSet set = entry.rules.flow;
    FlowRuleState[] states = set.states;
    for (FlowRuleState state : states) {
      FlowLimiter limiter = state.select(entry, set.namedOrigins);
      if (limiter == null) {
        continue;
      }
      long result = limiter.tryAcquire(entry.acquireCount, entry.startNanos);
      if (result < 0) {
        return new FlowException(entry.resource, state.rule, FlowLimiter.retryAfterNanos(result));
      }
      entry.hold(limiter, result);
    }
    if (set.waits) {
      entry.startNanos = clock.read(); // a queued call's response time starts when its slot comes
    }
    return null;
  }
}
