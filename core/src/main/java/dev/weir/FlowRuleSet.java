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
 * queue position and window counts of unchanged rules survive. A rule that changed only its
 * {@code count} keeps what its limiter can carry over ({@link FlowLimiter#withCount}): the calls
 * inside a {@code threads} rule, the current window of a {@code reject} rule.
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
      next[i] = kept.remove(rules.get(i));
    }
    // A rule that differs from an old one only in its count takes over that rule's state.
    for (int i = 0; i < next.length; i++) {
      if (next[i] == null) {
        FlowRule rule = rules.get(i);
        FlowRuleState predecessor = null;
        for (FlowRuleState old : kept.values()) {
          if (old.rule.toBuilder().count(rule.count()).build().equals(rule)) {
            predecessor = old;
            break;
          }
        }
        if (predecessor != null) {
          kept.remove(predecessor.rule);
        }
        next[i] = new FlowRuleState(rule, engine, predecessor);
      }
    }
    return new FlowRuleSet(next);
  }
}
