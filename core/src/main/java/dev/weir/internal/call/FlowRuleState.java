package dev.weir.internal.call;

import dev.weir.internal.cluster.ClusterKeys;
import dev.weir.internal.limit.AdaptiveLimiter;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import java.util.Map;
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

  /** A fresh state for {@code rule}: nothing counted yet. */
  FlowRuleState(FlowRule rule, Limiters limiters) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.limiters = limiters;
    boolean perOriginState = perOrigin(rule);
    this.shared = perOriginState ? null : limiters.forFlow(rule, sharedScope(rule));
    this.perOrigin = perOriginState ? new ConcurrentHashMap<>() : null;
  }

  private FlowRuleState(FlowRule rule, Limiters limiters, @Nullable FlowLimiter shared,
      @Nullable ConcurrentHashMap<String, FlowLimiter> perOrigin, @Nullable FlowLimiter overflow) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.limiters = limiters;
    this.shared = shared;
    this.perOrigin = perOrigin;
    this.overflow = overflow;
  }

  /**
   * The state of {@code rule}, which succeeds this state's rule: the same rule but for its
   * {@code shadow} flag, its {@code name}, its {@code count} or, for an adaptive rule, its
   * {@code min-limit}, {@code max-limit} and {@code initial-limit} (a new initial limit changes
   * nothing: the limit carried over is where it is). The one place where a rule change carries limiter
   * state, and it carries every limiter the same way: the shared one, each origin's, and the
   * overflow limiter of the origins beyond the bound.
   *
   * <p>With the same count the successor has the very same limiters (and the same map of origins,
   * so an origin a call adds through either state is in both): switching shadow mode or the name is not a
   * change of what the rule counts. With another count each limiter is replaced by what it carries
   * over ({@link FlowLimiter#withCount}: the calls inside a {@code threads} rule, the window of a
   * {@code reject} rule), or by a fresh one where it carries nothing; the overflow limiter, when it
   * carries nothing, is made again when an origin next overflows. Each replaced limiter is
   * {@linkplain FlowLimiter#succeededBy succeeded} by its replacement, carried or fresh: a call
   * admitted before the change settles ({@code Entry.settle}) with the replacement, so that refunds
   * and debts survive the change.
   */
  FlowRuleState successor(FlowRule rule) {
    if (rule.count() == this.rule.count() && rule.minLimit() == this.rule.minLimit()
        && rule.maxLimit() == this.rule.maxLimit()) {
      return new FlowRuleState(rule, limiters, shared, perOrigin, overflow);
    }
    if (rule.grade() == FlowGrade.ADAPTIVE && shared instanceof AdaptiveLimiter adaptive) {
      // Only the bounds changed (an adaptive rule has no per-origin limiters): the calls inside,
      // the baseline and the limit stay, clamped into the new bounds.
      FlowLimiter bounded = adaptive.withBounds(rule.minLimit(), rule.maxLimit());
      adaptive.succeededBy(bounded);
      return new FlowRuleState(rule, limiters, bounded, null, null);
    }
    double count = rule.count();
    FlowLimiter nextShared = null;
    if (shared != null) {
      FlowLimiter carried = shared.withCount(count);
      nextShared = carried != null ? carried : limiters.forFlow(rule, sharedScope(rule));
      shared.succeededBy(nextShared); // calls admitted before the change settle with the rule as it is now
    }
    ConcurrentHashMap<String, FlowLimiter> nextPerOrigin = null;
    if (perOrigin != null) {
      nextPerOrigin = new ConcurrentHashMap<>();
      for (Map.Entry<String, FlowLimiter> origin : perOrigin.entrySet()) {
        FlowLimiter carried = origin.getValue().withCount(count);
        if (carried != null) {
          nextPerOrigin.put(origin.getKey(), carried);
          origin.getValue().succeededBy(carried);
        }
      }
    }
    FlowLimiter spill = overflow;
    FlowLimiter nextSpill = spill == null ? null : spill.withCount(count);
    if (nextSpill != null) {
      spill.succeededBy(nextSpill);
    }
    return new FlowRuleState(rule, limiters, nextShared, nextPerOrigin, nextSpill);
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
    // The origin is a caller's (a request header): encoded, so that no origin names another
    // window in the cluster store, the overflow's "other=*" included (ClusterKeys never writes '*').
    return map.computeIfAbsent(origin, o -> limiters.forFlow(rule, "other=" + ClusterKeys.text(o)));
  }

  /** Whether {@code rule} keeps a limiter per origin ({@code limit-app: other}, but for {@code related}). */
  private static boolean perOrigin(FlowRule rule) {
    return FlowRule.LIMIT_APP_OTHER.equals(rule.limitApp()) && rule.strategy() != FlowStrategy.RELATED;
  }

  /** The calls a shared limiter counts, as named in a {@link dev.weir.cluster.ClusterLimit}. */
  private static String sharedScope(FlowRule rule) {
    String limitApp = rule.limitApp();
    return FlowRule.LIMIT_APP_DEFAULT.equals(limitApp) ? "all"
        : FlowRule.LIMIT_APP_OTHER.equals(limitApp) ? "other" : "origin=" + limitApp;
  }
}
