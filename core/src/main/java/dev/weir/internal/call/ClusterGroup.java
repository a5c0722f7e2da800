package dev.weir.internal.call;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterLimit;
import dev.weir.internal.cluster.ClusterFlowLimiter;
import dev.weir.internal.cluster.ClusterGuard;
import dev.weir.internal.cluster.GroupSettlement;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.RuleKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The cluster-mode flow rules of one resource that every call meets (in force, {@code limit-app:
 * default}, strategy {@code direct}), when there are two or more: decided together by one store
 * round trip, all or nothing ({@link dev.weir.cluster.ClusterClient#counterOfAll}), so that a call
 * refused by the per-day limit takes no permit from the per-second one.
 *
 * <p>Why only these rules: which of them a call meets is then known when the rules are loaded, so
 * the combined counter is made once, not per call. A rule for one origin or one chain context, a
 * {@code limit-app: other} rule and a rule in shadow mode are decided alone, as before.
 *
 * <p>The decision is one {@link ClusterGuard} decision (counted once in {@link ClusterStatus}). When
 * the store cannot answer, the fallback decides rule by rule in their order: {@code local} (or
 * {@code share}) asks each rule's local limiter (or share limiter) and holds what it admits (the engine refunds them when a later rule
 * refuses), {@code allow} admits, {@code deny} refuses with the first rule.
 */
final class ClusterGroup {

  /** Index, in the rule set's states, of the first rule of the group: where the group is decided. */
  final int first;
  /** By index in the rule set's states: whether that rule is decided by the group. */
  final boolean[] members;
  private final FlowRule[] rules;
  private final ClusterFlowLimiter[] limiters;
  private final ClusterGuard guard;
  private final ClusterCounter counter;
  /** What an admitted call holds, so that {@code Entry.settle} reaches every limit of the group in one command. */
  private final GroupSettlement settlement;

  private ClusterGroup(int first, boolean[] members, FlowRule[] rules, ClusterFlowLimiter[] limiters,
      ClusterGuard guard, ClusterCounter counter) {
    this.first = first;
    this.members = members;
    this.rules = rules;
    this.limiters = limiters;
    this.guard = guard;
    this.counter = counter;
    this.settlement = new GroupSettlement(guard, counter);
  }

  /** The group of {@code states}, or null when fewer than two rules qualify or the store cannot combine them. */
  static @Nullable ClusterGroup of(FlowRuleState[] states) {
    boolean[] members = new boolean[states.length];
    List<FlowRule> rules = new ArrayList<>();
    List<ClusterFlowLimiter> limiters = new ArrayList<>();
    int first = -1;
    for (int i = 0; i < states.length; i++) {
      FlowRuleState state = states[i];
      FlowRule rule = state.rule;
      if (state.shadow == null && FlowRule.LIMIT_APP_DEFAULT.equals(rule.limitApp())
          && rule.strategy() == FlowStrategy.DIRECT && state.sharedLimiter() instanceof ClusterFlowLimiter limiter
          && limiter.limit != null) {
        members[i] = true;
        first = first < 0 ? i : first;
        rules.add(rule);
        limiters.add(limiter);
      }
    }
    if (limiters.size() < 2) {
      return null;
    }
    ClusterGuard guard = limiters.get(0).guard;
    List<ClusterLimit> limits = new ArrayList<>();
    for (ClusterFlowLimiter limiter : limiters) {
      limits.add(Objects.requireNonNull(limiter.limit));
    }
    ClusterCounter counter;
    try {
      counter = guard.client.counterOfAll(limits);
    } catch (RuntimeException e) {
      counter = null; // a client that cannot: each rule is decided alone
    }
    if (counter == null) {
      return null;
    }
    return new ClusterGroup(first, members, rules.toArray(FlowRule[]::new),
        limiters.toArray(ClusterFlowLimiter[]::new), guard, counter);
  }

  /** Decides the call for every rule of the group; false, with the refusal recorded in the frame, when one refuses. */
  boolean enter(Call call) {
    int permits = call.acquireCount;
    long now = call.startNanos;
    ClusterDecision decision = guard.decide(counter, permits, now);
    if (decision != null) {
      if (decision.admitted()) {
        call.hold(settlement, GroupSettlement.token(decision)); // for a settle; a refund gives nothing back
        return true; // counted in the store; like a single cluster rule's, never given back there
      }
      FlowRule by = rules[Math.min(decision.refusedBy(), rules.length - 1)];
      return call.refuse(RuleKind.FLOW, by, TimeUnit.MILLISECONDS.toNanos(decision.retryAfterMillis()));
    }
    switch (guard.fallback) {
      case ALLOW -> {
        return true;
      }
      case DENY -> {
        return call.refuse(RuleKind.FLOW, rules[0], 0);
      }
      default -> {
        for (int i = 0; i < limiters.length; i++) {
          FlowLimiter local = limiters[i].fallbackLimiter();
          long result = local.tryAcquire(permits, now);
          if (result < 0) {
            return call.refuse(RuleKind.FLOW, rules[i], FlowLimiter.retryAfterNanos(result));
          }
          call.hold(local, result);
        }
        return true;
      }
    }
  }
}
