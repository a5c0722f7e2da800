package dev.weir.internal.call;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterLimit;
import dev.weir.internal.cluster.ClusterFlowLimiter;
import dev.weir.internal.cluster.ClusterGuard;
import dev.weir.internal.cluster.ClusterKeys;
import dev.weir.internal.cluster.LeasedFlowLimiter;
import dev.weir.internal.limit.AdaptiveLimiter;
import dev.weir.internal.limit.ConcurrencyLimiter;
import dev.weir.internal.limit.ExactLimiter;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.PacingLimiter;
import dev.weir.internal.limit.RelatedLimiter;
import dev.weir.internal.limit.RelatedTraffic;
import dev.weir.internal.limit.TokenBucketLimiter;
import dev.weir.internal.limit.WarmUpLimiter;
import dev.weir.internal.limit.WindowLimiter;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.ParamFlowRule;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The one mapping from a rule to the {@link FlowLimiter} that counts its calls, with what limiters
 * need from the engine: its clock, its cluster guard (cluster-mode rules), its nodes
 * ({@code strategy: related} reads another resource), and the bound of per-origin limiters.
 */
final class Limiters {

  private final EngineClock clock;
  private final @Nullable ClusterGuard cluster;
  /** The statistics of a resource by name, for {@code strategy: related}. */
  private final Function<String, @Nullable RelatedTraffic> traffic;
  /** How many origins of a {@code limit-app: other} rule get a limiter of their own. */
  final int maxOrigins;
  /**
   * Whether the keys of {@code rule} are leased from the store ({@code weir.cluster.lease}): each
   * key's limiter then holds a lease and its bookkeeping besides ({@link LeasedFlowLimiter#KEY_BYTES}).
   */
  boolean leasesKeys(ParamFlowRule rule) {
    return cluster != null && cluster.lease && rule.clusterMode();
  }

  /** The estimated heap the keys of one hot-parameter rule may hold ({@link TrackedKeys}). */
  final long maxKeyBytes;
  final Overflow overflow;

  Limiters(EngineClock clock, @Nullable ClusterGuard cluster, Function<String, @Nullable RelatedTraffic> traffic,
      int maxOrigins, long maxKeyBytes,
      Overflow overflow) {
    this.clock = clock;
    this.cluster = cluster;
    this.traffic = traffic;
    this.maxOrigins = maxOrigins;
    this.maxKeyBytes = maxKeyBytes;
    this.overflow = overflow;
  }

  /**
   * A limiter counting the calls of {@code rule} that {@code scope} names ({@code all},
   * {@code origin=<name>}, {@code other=<encoded origin>}, {@code other=*}: see {@link ClusterLimit}), in
   * the cluster store when the rule is in cluster mode and the engine has a cluster client.
   */
  FlowLimiter forFlow(FlowRule rule, String scope) {
    FlowLimiter local = localFlow(rule);
    if (!rule.clusterMode() || cluster == null) {
      return local;
    }
    String chain = rule.strategy() == FlowStrategy.CHAIN ? "chain=" + rule.refResource() + "," : "";
    // A shadow rule counts in a counter of its own: it must never take what a rule in force admits.
    String shadow = rule.shadow() ? ",shadow" : "";
    ClusterLimit limit = new ClusterLimit(rule.resource(), chain + scope + shadow, rule.count(), rule.interval(),
        rule.exact());
    ClusterFlowLimiter perCall =
        new ClusterFlowLimiter(cluster, limit, local, count -> localFlow(rule.toBuilder().count(count).build()));
    if (!cluster.lease) {
      return perCall;
    }
    ClusterClient client = cluster.client;
    return LeasedFlowLimiter.of(cluster, () -> client.leases(limit), perCall, rule.count(), rule.interval().toNanos());
  }

  /** The engine's clock. */
  EngineClock clock() {
    return clock;
  }

  private FlowLimiter localFlow(FlowRule rule) {
    long now = clock.read();
    long interval = rule.interval().toNanos();
    if (rule.strategy() == FlowStrategy.RELATED) {
      return new RelatedLimiter(traffic, rule.refResource(), rule.grade(), rule.count());
    }
    if (rule.grade() == FlowGrade.THREADS) {
      return new ConcurrencyLimiter(rule, clock);
    }
    if (rule.grade() == FlowGrade.ADAPTIVE) {
      return new AdaptiveLimiter(rule.minLimit(), rule.maxLimit(), rule.startingLimit(), now);
    }
    return switch (rule.controlBehavior()) {
      case REJECT -> rule.exact() ? new ExactLimiter(interval, rule.count(), clock, now)
          : new WindowLimiter(interval, rule.count(), clock, now);
      case QUEUE -> new PacingLimiter(interval, rule.count(), rule.maxQueueingTime().toNanos(), clock, now);
      case WARM_UP -> new WarmUpLimiter(interval, rule.count(), rule.warmUpPeriod().toNanos(), rule.coldFactor(), 0,
          clock, now);
      case WARM_UP_QUEUE -> new WarmUpLimiter(interval, rule.count(), rule.warmUpPeriod().toNanos(),
          rule.coldFactor(), rule.maxQueueingTime().toNanos(), clock, now);
    };
  }

  /**
   * A limiter of one key of {@code rule} (the first of its resource's cluster-mode rules on its
   * argument and duration), at {@code count} (the rule's, or the key's exception), in
   * the cluster store when the rule is in cluster mode, the engine has a cluster client and it
   * counts keys ({@link dev.weir.cluster.ClusterClient#keyCounter}), under the key's encoded text
   * ({@link ClusterKeys}); the fallback is then a local limiter of the same count.
   */
  FlowLimiter forParamValue(ParamFlowRule rule, Object key, double count) {
    return forParamValue(rule, ClusterKeys.ruleName(rule), key, count);
  }

  /**
   * As {@link #forParamValue(ParamFlowRule, Object, double)}, for the rule the store knows as
   * {@code ruleName} ({@link ClusterKeys#ruleNames}: its place among the resource's rules tells it
   * from rules of the same argument and duration).
   */
  FlowLimiter forParamValue(ParamFlowRule rule, String ruleName, Object key, double count) {
    FlowLimiter local = forParamValue(rule, count);
    if (!rule.clusterMode() || cluster == null || rule.grade() != FlowGrade.QPS
        || rule.controlBehavior() != ControlBehavior.REJECT) {
      return local;
    }
    ClusterKeyLimit limit = new ClusterKeyLimit(rule.resource(), ruleName, ClusterKeys.text(key), count,
        rule.duration(), rule.burst());
    ClusterCounter counter = cluster.client.keyCounter(limit);
    if (counter == null) {
      return local;
    }
    ClusterFlowLimiter perCall = new ClusterFlowLimiter(cluster, count, counter, local, shared -> forParamValue(rule, shared));
    if (!cluster.lease) {
      return perCall;
    }
    ClusterClient client = cluster.client;
    return LeasedFlowLimiter.of(cluster, () -> client.keyLeases(limit), perCall, count, rule.duration().toNanos());
  }

  /** A limiter of one argument value of {@code rule}, at {@code count} (the rule's, or the value's exception). */
  FlowLimiter forParamValue(ParamFlowRule rule, double count) {
    long now = clock.read();
    long duration = rule.duration().toNanos();
    if (rule.grade() == FlowGrade.THREADS) {
      return new ConcurrencyLimiter(count);
    }
    if (rule.controlBehavior() == ControlBehavior.QUEUE) {
      return new PacingLimiter(duration, count, rule.maxQueueingTime().toNanos(), clock, now);
    }
    return new TokenBucketLimiter(duration, count, rule.burst(), clock, now);
  }
}
