package dev.weir.internal.call;

import dev.weir.CircuitBreakerListener;
import dev.weir.KeyExpressions;
import dev.weir.internal.cluster.ClusterKeys;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.rule.AuthorityRule;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
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
      new ParamFlowRuleState[0], new AuthorityRule[0], new ShadowRefusals[0], SlotChain.EMPTY);

  final FlowRuleSet flow;
  final CircuitBreaker[] breakers;
  final ParamFlowRuleState[] paramFlow;
  final AuthorityRule[] authority;
  /** For {@code authority[i]} in shadow mode, its refusals; null for a rule in force for real. */
  final @Nullable ShadowRefusals[] authorityShadow;
  final SlotChain chain;
  /**
   * Whether a call of these rules reads the ticker when it enters and when it completes, rather
   * than the engine's coarse time ({@link #needsPreciseTime}); decided here, once per rules change.
   */
  final boolean preciseTime;

  private ResourceRules(FlowRuleSet flow, CircuitBreaker[] breakers, ParamFlowRuleState[] paramFlow,
      AuthorityRule[] authority, @Nullable ShadowRefusals[] authorityShadow, SlotChain chain) {
    this.flow = flow;
    this.breakers = breakers;
    this.paramFlow = paramFlow;
    this.authority = authority;
    this.authorityShadow = authorityShadow;
    this.chain = chain;
    this.preciseTime = needsPreciseTime(flow.states, breakers, paramFlow);
  }

  /** Below this a slow-call threshold needs sub-millisecond readings: a coarse reading is up to 1 ms old. */
  private static final long PRECISE_SLOW_CALL_NANOS = 10_000_000;

  /*
   * Which rules need sub-millisecond time, and why the others do not. A coarse reading is an older
   * reading of the same clock, at most the resolution (1 ms) old while the clock's thread runs on
   * time, and every limiter is built for old readings (EngineClock's time model): windows, buckets,
   * warm-up and statistics keep every bound on it. What a coarse reading loses is precision, which
   * matters where the rule's own arithmetic is finer than a millisecond:
   * - a queue spaces admissions by interval/count, often well under a millisecond, and computes how
   *   long a call waits from its reading;
   * - an adaptive limit feeds each call's latency to its gradient, and a service answering in
   *   200 µs would read 0 or 1 ms;
   * - a slow-call breaker under 10 ms judges each call's duration against its threshold, where an
   *   error of up to 1 ms either way is 10 % or more.
   */
  private static boolean needsPreciseTime(FlowRuleState[] flow, CircuitBreaker[] breakers,
      ParamFlowRuleState[] paramFlow) {
    for (FlowRuleState state : flow) {
      FlowRule rule = state.rule;
      if (rule.grade() == FlowGrade.ADAPTIVE || rule.grade() == FlowGrade.QPS && queues(rule.controlBehavior())) {
        return true;
      }
    }
    for (CircuitBreaker breaker : breakers) {
      DegradeRule rule = breaker.rule;
      if (rule.strategy() == DegradeStrategy.SLOW_RATIO
          && rule.slowCallThreshold().toNanos() < PRECISE_SLOW_CALL_NANOS) {
        return true;
      }
    }
    for (ParamFlowRuleState state : paramFlow) {
      if (state.rule.grade() == FlowGrade.QPS && queues(state.rule.controlBehavior())) {
        return true;
      }
    }
    return false;
  }

  private static boolean queues(ControlBehavior behavior) {
    return behavior == ControlBehavior.QUEUE || behavior == ControlBehavior.WARM_UP_QUEUE;
  }

  /**
   * The rules {@code next} (one resource's, validated) with their states, keeping the live state of
   * every rule of this value that stays in force, and the chain of {@code slots} they need.
   *
   * <p>A rule equal to one in force keeps its state (window counts, warm-up progress, queue
   * position, circuit state). So does a rule that differs from one in force only in
   * {@code shadow} and {@code name}: switching shadow mode on or off, or naming the rule, is not a
   * change of what the rule counts, and its new state object shares the live state of the old one.
   * A flow rule that differs from one in force in its {@code count} (and possibly {@code shadow}
   * and {@code name}) keeps what its limiter can carry over
   * ({@link FlowLimiter#withCount}): the calls inside a {@code threads} rule, the current window of
   * a {@code reject} rule. Any other rule starts fresh. A cluster-mode rule keeps its state only
   * while it counts in the same counter of the store: a flow rule not switched in or out of shadow
   * mode ({@link #sameStoreCounter}), a param-flow rule whose name there stays the same
   * ({@link #paramFlowStates}).
   */
  ResourceRules next(RuleSet next, Limiters limiters, KeyExpressions keys, CircuitBreakerListener listener,
      List<Slot> slots) {
    FlowRuleState[] flowStates = carry(flow.states, next.flow(), s -> s.rule,
        (rule, twin) -> sameStoreCounter(twin.rule, rule) ? twin.successor(rule) : new FlowRuleState(rule, limiters),
        ResourceRules::lineage, (rule, predecessor) -> predecessor != null && sameStoreCounter(predecessor.rule, rule)
            ? predecessor.successor(rule) : new FlowRuleState(rule, limiters), FlowRuleState[]::new);
    CircuitBreaker[] nextBreakers = carry(breakers, next.degrade(), b -> b.rule, CircuitBreaker::new,
        rule -> null, (rule, predecessor) -> new CircuitBreaker(rule, listener), CircuitBreaker[]::new);
    ParamFlowRuleState[] nextParamFlow = paramFlowStates(next.paramFlow(), limiters, keys);
    AuthorityRule[] nextAuthority = next.authority().toArray(AuthorityRule[]::new);
    ResourceRules built = new ResourceRules(new FlowRuleSet(flowStates), nextBreakers, nextParamFlow,
        nextAuthority, authorityShadow(nextAuthority), SlotChain.EMPTY);
    return built.withChain(slots);
  }

  /**
   * Whether {@code next} counts in the store where {@code before} did: a cluster-mode rule in shadow
   * mode has a counter of its own, so one switched in or out of shadow mode starts with new limiters,
   * which count where every other instance's rule of that mode counts.
   */
  private static boolean sameStoreCounter(FlowRule before, FlowRule next) {
    return !next.clusterMode() || before.shadow() == next.shadow();
  }

  /**
   * The states of the param-flow rules {@code next}, as {@link #carry} hands them on, but only to a
   * rule whose name in the cluster store stays the same ({@link ClusterKeys#ruleNames}): a state's
   * per-key limiters count under its name, so a cluster-mode rule whose name changes (switched in or
   * out of shadow mode, or moved among rules of the same argument and duration) starts with new
   * limiters, which count in the store under its new name like every other instance's.
   */
  private ParamFlowRuleState[] paramFlowStates(List<ParamFlowRule> next, Limiters limiters, KeyExpressions keys) {
    @Nullable String[] names = ClusterKeys.ruleNames(next);
    // carry's new states are made below, where each rule's name is known: none is made twice
    @Nullable ParamFlowRuleState[] states = carry(paramFlow, next, s -> s.rule, ParamFlowRuleState::new, rule -> null,
        (rule, predecessor) -> null, ParamFlowRuleState[]::new);
    for (int i = 0; i < states.length; i++) {
      ParamFlowRuleState state = states[i];
      if (state == null || !Objects.equals(state.clusterName, names[i])) {
        states[i] = new ParamFlowRuleState(next.get(i), names[i], limiters, keys);
      }
    }
    return states;
  }

  /** The same rules with the chain of {@code slots} they need (compiled again: the system rule changed). */
  ResourceRules withChain(List<Slot> slots) {
    ResourceRules bare = new ResourceRules(flow, breakers, paramFlow, authority, authorityShadow, SlotChain.EMPTY);
    return new ResourceRules(flow, breakers, paramFlow, authority, authorityShadow, SlotChain.compile(slots, bare));
  }

  /**
   * The refusal counts of the authority rules {@code next} in shadow mode: that of an equal rule in
   * shadow mode now (so its once-a-second log keeps its pace), else a new one.
   */
  private @Nullable ShadowRefusals[] authorityShadow(AuthorityRule[] next) {
    Unused<ShadowRefusals> unused = new Unused<>();
    for (int i = 0; i < authority.length; i++) {
      ShadowRefusals shadow = authorityShadow[i];
      if (shadow != null) {
        unused.add(authority[i], shadow);
      }
    }
    Set<ShadowRefusals> taken = Collections.newSetFromMap(new IdentityHashMap<>());
    @Nullable ShadowRefusals[] shadows = new ShadowRefusals[next.length];
    for (int i = 0; i < next.length; i++) {
      AuthorityRule rule = next[i];
      if (rule.shadow()) {
        ShadowRefusals same = unused.take(rule, taken);
        shadows[i] = same != null ? same : ShadowRefusals.of(rule);
      }
    }
    return shadows;
  }

  /**
   * What a flow rule is but for its count (an adaptive rule's bounds) and what does not change what
   * it counts (shadow, name): a rule of the same lineage may carry its limiters over.
   */
  private static FlowRule lineage(FlowRule rule) {
    FlowRule.Builder lineage = ((FlowRule) twinKey(rule)).toBuilder().count(0).minLimit(FlowRule.DEFAULT_MIN_LIMIT)
        .maxLimit(FlowRule.DEFAULT_MAX_LIMIT).initialLimit(0);
    if (rule.grade() == FlowGrade.THREADS) {
      lineage.maxQueueingTime(Duration.ZERO).maxQueueingCount(0); // the calls inside stay when the waits change
    }
    return lineage.build();
  }

  /** {@code rule} without what does not change what it counts: in force, and without a name. Twins share their state. */
  private static ResourceRule twinKey(ResourceRule rule) {
    ResourceRule inForce = rule.withShadow(false);
    if (inForce instanceof FlowRule flow) {
      return flow.withName(null);
    }
    if (inForce instanceof ParamFlowRule param) {
      return param.withName(null);
    }
    return inForce;
  }

  /**
   * The states of {@code rules}, in order: the state of an equal rule of {@code old} where there is
   * one; else a {@code twin} of the state of a rule of {@code old} that differs only in
   * {@code shadow} and {@code name} ({@link #twinKey}); else a new state, given the state of a rule of
   * {@code old} of the same {@code lineage} (null for none), or null. Each old state is handed on at
   * most once, the first in order that matches; lookups are by hash, so replacing n rules costs O(n).
   */
  private static <R extends ResourceRule, S> S[] carry(S[] old, List<R> rules, Function<S, R> ruleOf,
      BiFunction<R, S, S> twin, Function<R, @Nullable Object> lineage, BiFunction<R, @Nullable S, S> create,
      IntFunction<S[]> array) {
    Unused<S> equal = new Unused<>();
    Unused<S> twins = new Unused<>();
    Unused<S> successors = new Unused<>();
    Set<S> taken = Collections.newSetFromMap(new IdentityHashMap<>());
    for (S state : old) {
      R rule = ruleOf.apply(state);
      equal.add(rule, state);
      twins.add(twinKey(rule), state);
      successors.add(lineage.apply(rule), state);
    }
    S[] next = array.apply(rules.size());
    for (int i = 0; i < next.length; i++) {
      next[i] = equal.take(rules.get(i), taken);
    }
    for (int i = 0; i < next.length; i++) {
      if (next[i] == null) {
        R rule = rules.get(i);
        S shadowed = twins.take(twinKey(rule), taken);
        if (shadowed != null) {
          next[i] = twin.apply(rule, shadowed);
        }
      }
    }
    for (int i = 0; i < next.length; i++) {
      if (next[i] == null) {
        R rule = rules.get(i);
        next[i] = create.apply(rule, successors.take(lineage.apply(rule), taken));
      }
    }
    return next;
  }

  /** Old states by a key of their rule, in order; a state taken under one key is gone under every key. */
  private static final class Unused<S> {
    private final Map<Object, ArrayDeque<S>> byKey = new HashMap<>();

    void add(@Nullable Object key, S state) {
      if (key != null) {
        byKey.computeIfAbsent(key, k -> new ArrayDeque<>()).add(state);
      }
    }

    @Nullable S take(@Nullable Object key, Set<S> taken) {
      ArrayDeque<S> states = key == null ? null : byKey.get(key);
      while (states != null && !states.isEmpty()) {
        S state = states.poll();
        if (taken.add(state)) {
          return state;
        }
      }
      return null;
    }
  }

}
