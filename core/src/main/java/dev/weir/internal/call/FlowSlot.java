package dev.weir.internal.call;

import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.RuleKind;
import dev.weir.spi.SlotOrder;

/**
 * Applies the resource's flow rules in order. Each applicable rule admits and counts atomically
 * through its {@link FlowLimiter}; the permits taken are remembered in the entry, and the engine
 * refunds them when any rule refuses the call, or releases them when it completes.
 *
 * <p>A rule in shadow mode (its state has {@link ShadowRefusals}) asks its limiter the same way,
 * except that it never waits: a permit it admits is held as any other (so its limiter counts what
 * it would count in force), and where it would refuse, its limiter has taken nothing, as for a
 * real refusal, and the call goes on to the next rule, counted as a shadow refusal; an adaptive
 * limiter then counts the call inside all the same ({@link FlowLimiter#holdInShadow}), since it
 * learns from the latency of every call that goes on. A rule in force for real pays one null check
 * of a final field for this.
 *
 * <p>The cluster-mode rules that every call meets are decided together, at the place of the first
 * of them, by one store round trip ({@link ClusterGroup}).
 */
public final class FlowSlot extends Slot {

  private final EngineClock clock;

  public FlowSlot(EngineClock clock) {
    super(SlotOrder.FLOW, ENTRY);
    this.clock = clock;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return !rules.flow.isEmpty();
  }

  @Override
  boolean entry(Call call) {
    FlowRuleSet set = call.rules.flow;
    FlowRuleState[] states = set.states;
    ClusterGroup group = set.clusterGroup;
    for (int i = 0; i < states.length; i++) {
      FlowRuleState state = states[i];
      if (group != null && group.members[i]) {
        // The group is decided at its first rule's place, for all its rules at once.
        if (i == group.first && !group.enter(call)) {
          return false;
        }
        continue;
      }
      FlowLimiter limiter = state.select(call.contextName, call.origin, set.namedOrigins);
      if (limiter == null) {
        continue;
      }
      ShadowRefusals shadow = state.shadow;
      long result = shadow == null ? limiter.tryAcquire(call.acquireCount, call.startNanos, call.criticality)
          : limiter.tryAcquireWithoutWaiting(call.acquireCount, call.startNanos, call.criticality);
      if (result >= 0) {
        call.hold(limiter, result);
      } else if (!call.refuseUnlessShadow(shadow, RuleKind.FLOW, state.rule, FlowLimiter.retryAfterNanos(result))) {
        return false;
      } else {
        long held = limiter.holdInShadow(call.acquireCount, call.startNanos); // shadow: the call goes on
        if (held >= 0) {
          call.hold(limiter, held);
        }
      }
    }
    if (set.waits) {
      call.startNanos = clock.readFresh(); // a queued call's response time starts when its slot comes
    }
    return true;
  }
}
