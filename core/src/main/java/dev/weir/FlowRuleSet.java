package dev.weir;

import dev.weir.rule.FlowRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flow rules of one resource with their states, immutable once built. A replacement builds a
 * new set and reuses the state of every rule equal to one of the old set, so warm-up progress,
 * queue position and window counts of unchanged rules survive.
 */
final class FlowRuleSet {

  static final FlowRuleSet EMPTY = new FlowRuleSet(new FlowRuleState[0]);

  final FlowRuleState[] states;
  /** Origins named by some rule's limit-app: {@code other} rules skip them. */
  final Set<String> namedOrigins;
  /** Whether some rule may make a call wait, so the call's start time must be read again. */
  final boolean waits;

  private FlowRuleSet(FlowRuleState[] states) {
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
  }

  boolean isEmpty() {
    return states.length == 0;
  }

  List<FlowRule> rules() {
    List<FlowRule> rules = new ArrayList<>(states.length);
    for (FlowRuleState state : states) {
      rules.add(state.rule);
    }
    return List.copyOf(rules);
  }

  /** Returns the set for {@code rules}, reusing the state of every rule this set already has. */
  FlowRuleSet replace(List<FlowRule> rules, Engine engine) {
    if (rules.isEmpty()) {
      return EMPTY;
    }
    Map<FlowRule, FlowRuleState> kept = new HashMap<>();
    for (FlowRuleState state : states) {
      kept.put(state.rule, state);
    }
    FlowRuleState[] next = new FlowRuleState[rules.size()];
    for (int i = 0; i < next.length; i++) {
      FlowRule rule = rules.get(i);
      FlowRuleState state = kept.get(rule);
      next[i] = state != null ? state : new FlowRuleState(rule, engine);
    }
    return new FlowRuleSet(next);
  }
}
