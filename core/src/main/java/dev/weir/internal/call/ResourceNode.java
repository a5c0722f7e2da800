package dev.weir.internal.call;

import dev.weir.CircuitState;
import dev.weir.ResourceStatistics;
import dev.weir.internal.limit.AdaptiveLimiter;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.internal.limit.ShadowCounts;
import dev.weir.internal.time.EngineClock;
import dev.weir.internal.time.LeapArray;
import dev.weir.rule.RuleKind;
import java.util.concurrent.atomic.LongAdder;

/**
 * Everything the engine keeps for one resource: its statistics (second and minute windows, totals,
 * refusals per rule kind), which {@link ResourceStatistics} exposes, and the rules in force with
 * their states and the slot chain compiled for them.
 *
 * <p>The rules and their chain are one immutable {@link ResourceRules} behind a volatile field: a
 * call reads it once, and a rules replacement publishes a new one in one write.
 */
public final class ResourceNode extends StatisticNode implements ResourceStatistics, ShadowCounts {

  private static final long ONE_MINUTE = 60_000_000_000L;

  final String name;
  private final EngineClock clock;
  final LeapArray<StatBucket> minute;
  /** Permits that shadow rules would have refused, by kind. */
  private final LongAdder[] shadowBlocked = new LongAdder[RuleKind.values().length];

  /** The rules in force, published in one write; see {@link ResourceRules}. */
  public volatile ResourceRules rules;

  ResourceNode(String name, int sampleCount, EngineClock clock, ResourceRules rules) {
    super(sampleCount);
    this.minute = new LeapArray<>(60, ONE_MINUTE, snapshots());
    this.name = name;
    this.clock = clock;
    this.rules = rules;
    for (int i = 0; i < shadowBlocked.length; i++) {
      shadowBlocked[i] = new LongAdder();
    }
  }

  /** The costs calls settled at, made at the first settle: a resource that never settles keeps none. */
  private volatile CostEstimate costs;

  /** Records the actual cost a call of this resource settled at ({@code Entry.settle}). */
  void recordCost(long cost) {
    CostEstimate at = costs;
    if (at == null) {
      synchronized (this) {
        at = costs;
        if (at == null) {
          costs = at = new CostEstimate();
        }
      }
    }
    at.record(cost);
  }

  /** The 95th percentile of the recent settled costs (rounded up), or {@code fallback} when none was settled. */
  public long costEstimate(long fallback) {
    CostEstimate at = costs;
    return at == null ? fallback : at.estimate(0.95, fallback);
  }

  /** A shadow rule of {@code kind} would have refused {@code count} permits; the call went on. */
  @Override
  public void onShadowBlock(int count, RuleKind kind) {
    shadowBlocked[kind.ordinal()].add(count);
  }

  @Override
  void onPass(long now, int count, int cell) {
    minute.current(now);
    super.onPass(now, count, cell);
  }

  @Override
  void onBlock(long now, int count, RuleKind kind, int cell) {
    minute.current(now);
    super.onBlock(now, count, kind, cell);
  }

  @Override
  void onComplete(long now, long rtNanos, int count, boolean error, int cell) {
    minute.current(now).addRt(rtNanos);
    super.onComplete(now, rtNanos, count, error, cell);
  }

  @Override
  void reset() {
    super.reset();
    minute.clear();
    for (LongAdder adder : shadowBlocked) {
      adder.reset();
    }
  }

  // ResourceStatistics: live readings at the engine's current time.

  @Override
  public String resource() {
    return name;
  }

  @Override
  public long passQps() {
    return passQps(clock.read());
  }

  @Override
  public long blockQps() {
    return blockQps(clock.read());
  }

  @Override
  public long successQps() {
    return successQps(clock.read());
  }

  @Override
  public long exceptionQps() {
    return exceptionQps(clock.read());
  }

  @Override
  public double avgRtMillis() {
    return avgRtMillis(clock.read());
  }

  @Override
  public double minRtMillis() {
    return minRtMillis(clock.read());
  }

  @Override
  public long passedLastMinute() {
    return since(minute, clock.read(), passedTotal(), b -> b.passed);
  }

  @Override
  public long blockedLastMinute() {
    return since(minute, clock.read(), blockedTotal(), b -> b.blocked);
  }

  @Override
  public long totalPassed() {
    return passedTotal();
  }

  @Override
  public long totalBlocked() {
    return blockedTotal();
  }

  @Override
  public long totalBlocked(RuleKind kind) {
    return blockedBy(kind);
  }

  @Override
  public long totalShadowBlocked(RuleKind kind) {
    return shadowBlocked[kind.ordinal()].sum();
  }

  @Override
  public long totalSucceeded() {
    return succeededTotal();
  }

  @Override
  public long totalFailed() {
    return failedTotal();
  }

  @Override
  public long totalResponseTimeNanos() {
    return rtNanosTotal();
  }

  @Override
  public CircuitState circuitState() {
    CircuitState worst = CircuitState.CLOSED;
    for (CircuitBreaker breaker : rules.breakers) {
      CircuitState state = breaker.state();
      if (state == CircuitState.OPEN) {
        return state;
      }
      if (state == CircuitState.HALF_OPEN) {
        worst = state;
      }
    }
    return worst;
  }

  @Override
  public int adaptiveLimit() {
    int lowest = -1;
    for (FlowRuleState state : rules.flow.states) {
      if (state.sharedLimiter() instanceof AdaptiveLimiter adaptive) {
        int limit = adaptive.limit();
        lowest = lowest < 0 ? limit : Math.min(lowest, limit);
      }
    }
    return lowest;
  }

  @Override
  public String toString() {
    return "ResourceNode{" + name + '}';
  }
}
