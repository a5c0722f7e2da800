package dev.weir.internal.call;

import dev.weir.Quota;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.TokenBucketLimiter;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads the quotas of a resource's rate rules for a call, without taking anything: the flow rules
 * that apply to the caller's context and origin, and the hot-parameter rules for the call's keys.
 * Only limiters that keep a quota report one ({@link FlowLimiter#readQuota}): the sliding window,
 * the exact window and the token bucket. Concurrency, pacing ({@code queue}), warm-up, related,
 * and cluster limiters report none. A key that has no limiter yet is read as the full bucket its
 * limiter would start with ({@link TokenBucketLimiter#readFull}), unless its rule is in cluster
 * mode.
 */
public final class Quotas {

  private Quotas() {
  }

  public static List<Quota> read(ResourceRules rules, String contextName, String origin, Object @Nullable [] args,
      long now) {
    List<Quota> out = new ArrayList<>();
    long[] reading = new long[2];
    FlowRuleState[] flow = rules.flow.states;
    for (int i = 0; i < flow.length; i++) {
      FlowRuleState state = flow[i];
      FlowRule rule = state.rule;
      if (rule.grade() != FlowGrade.QPS) {
        continue;
      }
      FlowLimiter limiter = state.select(contextName, origin, rules.flow.namedOrigins);
      if (limiter != null && limiter.readQuota(now, reading)) {
        out.add(new Quota(RuleKind.FLOW, i, rule.name(), (long) Math.floor(rule.count()), rule.interval(),
            reading[0], Duration.ofNanos(reading[1])));
      }
    }
    ParamFlowRuleState[] paramFlow = rules.paramFlow;
    for (int i = 0; i < paramFlow.length; i++) {
      ParamFlowRuleState state = paramFlow[i];
      ParamFlowRule rule = state.rule;
      if (rule.grade() != FlowGrade.QPS) {
        continue;
      }
      Object argument = state.argument(args);
      if (argument == ParamFlowRuleState.ABSENT || ParamFlowRuleState.isMany(argument)) {
        continue; // no key, or one per element: no single quota to tell
      }
      Object key = state.counted(argument);
      if (key == null || key == ParamFlowRuleState.DENIED) {
        continue;
      }
      long limit = (long) Math.floor(state.countOf(key));
      FlowLimiter limiter = state.existingLimiter(key);
      if (limiter == null) {
        // A new key's bucket is full. Not told for cluster mode: the key's count there may be used
        // up by other instances, and its limiter would report nothing either.
        if (rule.controlBehavior() == ControlBehavior.REJECT && !rule.clusterMode()) {
          TokenBucketLimiter.readFull(rule.duration().toNanos(), state.countOf(key), rule.burst(), reading);
          out.add(new Quota(RuleKind.PARAM_FLOW, i, rule.name(), limit, rule.duration(), reading[0],
              Duration.ofNanos(reading[1])));
        }
      } else if (limiter.readQuota(now, reading)) {
        out.add(new Quota(RuleKind.PARAM_FLOW, i, rule.name(), limit, rule.duration(), reading[0],
            Duration.ofNanos(reading[1])));
      }
    }
    return out;
  }
}
