package dev.weir;

import dev.weir.rule.RuleKind;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Everything the engine keeps for one resource: statistics over all contexts together (second and
 * minute windows, totals, blocks per rule kind), the per-context and per-origin statistics nodes,
 * the rule states, and the slot chain compiled for this resource's rules.
 *
 * <p>The rules and their chain are one immutable {@link ResourceRules} behind a volatile field: a
 * call reads it once, and a rules replacement publishes a new one in one write.
 */
final class ResourceNode extends StatisticNode implements ResourceStatistics {

  private static final long ONE_MINUTE = 60_000_000_000L;

  final String name;
  private final Engine engine;
  final LeapArray<StatBucket> minute;
  private final LongAdder[] blockedByKind = new LongAdder[RuleKind.values().length];
  private final ConcurrentHashMap<String, StatisticNode> byContext = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, StatisticNode> byOrigin = new ConcurrentHashMap<>();

  /** The rules in force, published in one write; see {@link ResourceRules}. */
  volatile ResourceRules rules;

  ResourceNode(String name, Engine engine) {
    super(engine.sampleCount);
    this.minute = new LeapArray<>(60, ONE_MINUTE, snapshots());
    this.name = name;
    this.engine = engine;
    for (int i = 0; i < blockedByKind.length; i++) {
      blockedByKind[i] = new LongAdder();
    }
    this.rules = ResourceRules.NONE.withChain(engine.chainFor(ResourceRules.NONE));
  }

  @Override
  void onPass(long now, int count) {
    minute.current(now);
    super.onPass(now, count);
  }

  void onBlock(long now, int count, RuleKind kind) {
    minute.current(now);
    super.onBlock(now, count);
    blockedByKind[kind.ordinal()].add(count);
  }

  @Override
  void onComplete(long now, long rtNanos, int count, boolean error) {
    minute.current(now).addRt(rtNanos);
    super.onComplete(now, rtNanos, count, error);
  }

  @Override
  void reset() {
    super.reset();
    minute.clear();
    for (LongAdder adder : blockedByKind) {
      adder.reset();
    }
    byContext.clear();
    byOrigin.clear();
  }

  /** The (context, resource) node, or null beyond the engine's bound of contexts. */
  @Nullable StatisticNode contextNode(String context) {
    StatisticNode node = byContext.get(context);
    if (node != null) {
      return node;
    }
    if (!engine.contexts.admit(context)) {
      return null;
    }
    return byContext.computeIfAbsent(context, c -> new StatisticNode(engine.sampleCount));
  }

  /** The (resource, origin) node, or null beyond the bound of origins per resource. */
  @Nullable StatisticNode originNode(String origin) {
    StatisticNode node = byOrigin.get(origin);
    if (node != null) {
      return node;
    }
    if (byOrigin.size() >= engine.maxOrigins) {
      engine.overflow.origin(name, origin);
      return null;
    }
    return byOrigin.computeIfAbsent(origin, o -> new StatisticNode(engine.sampleCount));
  }

  Map<String, StatisticNode> contextNodes() {
    return byContext;
  }

  Map<String, StatisticNode> originNodes() {
    return byOrigin;
  }

  // ResourceStatistics: live readings at the engine's current time.

  @Override
  public String resource() {
    return name;
  }

  @Override
  public long passQps() {
    return passQps(engine.clock.read());
  }

  @Override
  public long blockQps() {
    return blockQps(engine.clock.read());
  }

  @Override
  public long successQps() {
    return successQps(engine.clock.read());
  }

  @Override
  public long exceptionQps() {
    return exceptionQps(engine.clock.read());
  }

  @Override
  public double avgRtMillis() {
    return avgRtMillis(engine.clock.read());
  }

  @Override
  public double minRtMillis() {
    return minRtMillis(engine.clock.read());
  }

  @Override
  public long passedLastMinute() {
    return since(minute, engine.clock.read(), passed.sum(), b -> b.passed);
  }

  @Override
  public long blockedLastMinute() {
    return since(minute, engine.clock.read(), blocked.sum(), b -> b.blocked);
  }

  @Override
  public long totalPassed() {
    return passed.sum();
  }

  @Override
  public long totalBlocked() {
    return blocked.sum();
  }

  @Override
  public long totalBlocked(RuleKind kind) {
    return blockedByKind[kind.ordinal()].sum();
  }

  @Override
  public long totalSucceeded() {
    return succeeded.sum();
  }

  @Override
  public long totalFailed() {
    return failed.sum();
  }

  @Override
  public long totalResponseTimeNanos() {
    return rtNanosTotal.sum();
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
  public String toString() {
    return "ResourceNode{" + name + '}';
  }
}
