package dev.weir;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Everything one resource's calls are checked against, published as one immutable value: the flow
 * rule states, circuit breakers, hot-parameter states, authority rules, and the slot chain compiled
 * for them. A call reads it once, when it starts, and every slot decides against that same value,
 * so a rules replacement (one volatile write of a new value) is seen by a call entirely or not at
 * all: never the old flow rules with the new authority rules.
 */
final class ResourceRules {

  static final ResourceRules NONE = new ResourceRules(new FlowRuleSet(new FlowRuleState[0]), new CircuitBreaker[0],
      new ParamFlowRuleState[0], new AuthorityRule[0], SlotChain.EMPTY);

  final FlowRuleSet flow;
  final CircuitBreaker[] breakers;
  final ParamFlowRuleState[] paramFlow;
  final AuthorityRule[] authority;
  final SlotChain chain;

  private ResourceRules(FlowRuleSet flow, CircuitBreaker[] breakers, ParamFlowRuleState[] paramFlow,
      AuthorityRule[] authority, SlotChain chain) {
    this.flow = flow;
    this.breakers = breakers;
    this.paramFlow = paramFlow;
    this.authority = authority;
    this.chain = chain;
  }

  /**
   * The rules {@code next} (one resource's, validated) with their states, keeping the live state of
   * every rule of this value that stays in force, and the chain of {@code slots} they need.
   *
   * <p>A rule equal to one in force keeps its state (window counts, warm-up progress, queue
   * position, circuit state). A flow rule that differs from one in force only in its
   * {@code count} keeps what its limiter can carry over ({@link FlowLimiter#withCount}): the calls
   * inside a {@code threads} rule, the current window of a {@code reject} rule. Any other rule
   * starts fresh.
   */
  ResourceRules next(RuleSet next, Limiters limiters, CircuitBreakerListener listener, List<Slot> slots) {
    FlowRuleState[] flowStates = carry(flow.states, next.flow(), s -> s.rule, ResourceRules::countChanged,
        (rule, predecessor) -> new FlowRuleState(rule, limiters, predecessor), FlowRuleState[]::new);
    CircuitBreaker[] nextBreakers = carry(breakers, next.degrade(), b -> b.rule, (a, b) -> false,
        (rule, predecessor) -> new CircuitBreaker(rule, listener), CircuitBreaker[]::new);
    ParamFlowRuleState[] nextParamFlow = carry(paramFlow, next.paramFlow(), s -> s.rule, (a, b) -> false,
        (rule, predecessor) -> new ParamFlowRuleState(rule, limiters), ParamFlowRuleState[]::new);
    ResourceRules built = new ResourceRules(new FlowRuleSet(flowStates), nextBreakers, nextParamFlow,
        next.authority().toArray(AuthorityRule[]::new), SlotChain.EMPTY);
    return built.withChain(slots);
  }

  /** The same rules with the chain of {@code slots} they need (compiled again: the system rule changed). */
  ResourceRules withChain(List<Slot> slots) {
    ResourceRules bare = new ResourceRules(flow, breakers, paramFlow, authority, SlotChain.EMPTY);
    return new ResourceRules(flow, breakers, paramFlow, authority, SlotChain.compile(slots, bare));
  }

  private static boolean countChanged(FlowRule old, FlowRule next) {
    return old.toBuilder().count(next.count()).build().equals(next);
  }

  /**
   * The states of {@code rules}, in order: the state of an equal rule of {@code old} where there is
   * one; else a new state, given the state of a rule of {@code old} that {@code succeeds} (each old
   * state is handed on at most once), or null.
   */
  private static <R, S> S[] carry(S[] old, List<R> rules, Function<S, R> ruleOf, BiPredicate<R, R> succeeds,
      BiFunction<R, @Nullable S, S> create, IntFunction<S[]> array) {
    List<S> unused = new ArrayList<>(List.of(old));
    S[] next = array.apply(rules.size());
    for (int i = 0; i < next.length; i++) {
      R rule = rules.get(i);
      next[i] = take(unused, state -> ruleOf.apply(state).equals(rule));
    }
    for (int i = 0; i < next.length; i++) {
      if (next[i] == null) {
        R rule = rules.get(i);
        S predecessor = take(unused, state -> succeeds.test(ruleOf.apply(state), rule));
        next[i] = create.apply(rule, predecessor);
      }
    }
    return next;
  }

  private static <S> @Nullable S take(List<S> states, java.util.function.Predicate<S> wanted) {
    for (int i = 0; i < states.size(); i++) {
      if (wanted.test(states.get(i))) {
        return states.remove(i);
      }
    }
    return null;
  }
}
