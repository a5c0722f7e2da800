package dev.weir;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One flow rule with its admission state. The rule decides which calls it applies to
 * ({@code limit-app}, {@code chain}) and which {@link FlowLimiter} counts them: one for
 * {@code default} and for a named origin, one per origin for {@code other}.
 *
 * <p>Per-origin limiters are bounded by {@code maxOrigins}; origins beyond the bound share one
 * overflow limiter (so unbounded caller identities cannot exhaust memory, nor escape the limit).
 */
final class FlowRuleState {

  final FlowRule rule;
  /** Non-null when the rule is in shadow mode: then it counts what it would refuse, and never waits. */
  final @Nullable ShadowRefusals shadow;
  private final Limiters limiters;
  private final @Nullable FlowLimiter shared;
  private final @Nullable ConcurrentHashMap<String, FlowLimiter> perOrigin;
  private volatile @Nullable FlowLimiter overflow;

  /** A state for {@code rule}, carrying over what it can of {@code predecessor}, the same rule with another count. */
  FlowRuleState(FlowRule rule, Limiters limiters, @Nullable FlowRuleState predecessor) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.limiters = limiters;
    boolean perOriginState = FlowRule.LIMIT_APP_OTHER.equals(rule.limitApp()) && rule.strategy() != FlowStrategy.RELATED;
    FlowLimiter carried = predecessor == null || predecessor.shared == null ? null
        : predecessor.shared.withCount(rule.count());
    this.shared = perOriginState ? null : carried != null ? carried : limiters.forFlow(rule, sharedScope(rule));
    this.perOrigin = perOriginState ? new ConcurrentHashMap<>() : null;
    if (perOrigin != null && predecessor != null && predecessor.perOrigin != null) {
      predecessor.perOrigin.forEach((origin, limiter) -> {
        FlowLimiter next = limiter.withCount(rule.count());
        if (next != null) {
          perOrigin.put(origin, next);
        }
      });
    }
  }

  /**
   * The state of {@code rule}, which differs from {@code twin}'s rule in {@code shadow} only: the
   * same limiters, so switching shadow mode on or off keeps the rule's counts, queue and warm-up.
   */
  FlowRuleState(FlowRule rule, FlowRuleState twin) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.limiters = twin.limiters;
    this.shared = twin.shared;
    this.perOrigin = twin.perOrigin;
    this.overflow = twin.overflow;
  }

  /** The limiter of every call the rule applies to, or null when it has one per origin. */
  @Nullable FlowLimiter sharedLimiter() {
    return shared;
  }

  /** Whether the rule may make a call wait: a queueing rule in force (in shadow mode, calls never wait). */
  boolean waits() {
    return shadow == null && rule.grade() == FlowGrade.QPS && (rule.controlBehavior() == ControlBehavior.QUEUE
        || rule.controlBehavior() == ControlBehavior.WARM_UP_QUEUE);
  }

  /** Returns the limiter that counts this call, or null when the rule does not apply to it. */
  @Nullable FlowLimiter select(String contextName, String origin, Set<String> namedOrigins) {
    if (rule.strategy() == FlowStrategy.CHAIN && !rule.refResource().equals(contextName)) {
      return null;
    }
    String limitApp = rule.limitApp();
    if (FlowRule.LIMIT_APP_DEFAULT.equals(limitApp)) {
      return shared;
    }
    if (FlowRule.LIMIT_APP_OTHER.equals(limitApp)) {
      if (origin.isEmpty() || namedOrigins.contains(origin)) {
        return null;
      }
      return perOrigin == null ? shared : limiterFor(origin);
    }
    return limitApp.equals(origin) ? shared : null;
  }

  private FlowLimiter limiterFor(String origin) {
    ConcurrentHashMap<String, FlowLimiter> map = perOrigin;
    FlowLimiter limiter = map.get(origin);
    if (limiter != null) {
      return limiter;
    }
    if (map.size() >= limiters.maxOrigins) {
      limiters.overflow.originLimiter(rule.resource(), origin);
      FlowLimiter spill = overflow;
      if (spill == null) {
        synchronized (this) {
          spill = overflow;
          if (spill == null) {
            overflow = spill = limiters.forFlow(rule, "other=*");
          }
        }
      }
      return spill;
    }
    return map.computeIfAbsent(origin, o -> limiters.forFlow(rule, "other=" + o));
  }

  /** The calls a shared limiter counts, as named in a {@link dev.weir.cluster.ClusterLimit}. */
  private static String sharedScope(FlowRule rule) {
    String limitApp = rule.limitApp();
    return FlowRule.LIMIT_APP_DEFAULT.equals(limitApp) ? "all"
        : FlowRule.LIMIT_APP_OTHER.equals(limitApp) ? "other" : "origin=" + limitApp;
  }
}
