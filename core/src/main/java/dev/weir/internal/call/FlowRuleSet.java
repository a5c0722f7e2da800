package dev.weir.internal.call;

import dev.weir.rule.FlowRule;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The flow rules of one resource with their states, in order, and what {@link FlowSlot} derives
 * from them once: the origins named by some rule, and whether any rule may make a call wait.
 * Immutable; built by {@link ResourceRules#next}.
 */
final class FlowRuleSet {

  static final FlowRuleSet EMPTY = new FlowRuleSet(new FlowRuleState[0]);

  final FlowRuleState[] states;
  /** Origins named by some rule's limit-app: {@code other} rules skip them. */
  final Set<String> namedOrigins;
  /** Whether some rule may make a call wait, so the call's start time must be read again. */
  final boolean waits;
  /** The cluster-mode rules every call meets, decided in one store round trip; null when none. */
  final @Nullable ClusterGroup clusterGroup;

  FlowRuleSet(FlowRuleState[] states) {
    this.states = states;
    Set<String> named = new HashSet<>();
    boolean anyWaits = false;
    for (FlowRuleState state : states) {
      String limitApp = state.rule.limitApp();
      if (!FlowRule.LIMIT_APP_DEFAULT.equals(limitApp) && !FlowRule.LIMIT_APP_OTHER.equals(limitApp)) {
        named.add(limitApp);
      }
      anyWaits |= state.waits();
    }
    this.namedOrigins = Set.copyOf(named);
    this.waits = anyWaits;
    this.clusterGroup = ClusterGroup.of(states);
  }

  boolean isEmpty() {
    return states.length == 0;
  }
}
