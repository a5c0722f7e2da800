package dev.weir.spring.metrics;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.cluster.FallbackReason;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds the meters of every resource of a {@link Weir} engine to a {@link MeterRegistry}: those of
 * the resources known when {@link #bindTo(MeterRegistry) bound}, and those of each resource the
 * engine starts tracking later (when it is first called or gets rules).
 *
 * <p>Every meter carries the tag {@code resource} and the common tags given here (Weir's
 * auto-configuration passes {@code weir.metrics.tags}); no meter carries a caller's identity.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>reads</th></tr>
 *   <tr><td>{@value #CALLS}</td><td>function counter</td><td>{@code result} = {@code succeeded},
 *       {@code failed}, {@code blocked}</td><td>{@link ResourceStatistics#totalSucceeded()},
 *       {@link ResourceStatistics#totalFailed()}, {@link ResourceStatistics#totalBlocked()}</td></tr>
 *   <tr><td>{@value #BLOCKS}</td><td>function counter</td><td>{@code rule} = {@code flow},
 *       {@code degrade}, {@code param-flow}, {@code authority}, {@code system}</td>
 *       <td>{@link ResourceStatistics#totalBlocked(RuleKind)}</td></tr>
 *   <tr><td>{@value #SHADOW_BLOCKS}</td><td>function counter</td><td>{@code rule}, as above</td>
 *       <td>{@link ResourceStatistics#totalShadowBlocked(RuleKind)}: what rules in shadow mode would
 *       have refused (the calls went on)</td></tr>
 *   <tr><td>{@value #ACTIVE}</td><td>gauge</td><td></td>
 *       <td>{@link ResourceStatistics#activeCalls()}</td></tr>
 *   <tr><td>{@value #WAITING}</td><td>gauge</td><td></td>
 *       <td>{@link ResourceStatistics#waitingCalls()}: calls waiting for a place under a
 *       {@code threads} rule with a {@code max-queueing-time}</td></tr>
 *   <tr><td>{@value #DURATION}</td><td>function timer</td><td></td><td>completed calls and
 *       {@link ResourceStatistics#totalResponseTimeNanos()}</td></tr>
 *   <tr><td>{@value #CIRCUIT_STATE}</td><td>gauge, 1 for the current state, else 0</td>
 *       <td>{@code state} = {@code closed}, {@code open}, {@code half_open}</td>
 *       <td>{@link ResourceStatistics#circuitState()}</td></tr>
 *   <tr><td>{@value #ADAPTIVE_LIMIT}</td><td>gauge</td><td></td>
 *       <td>{@link ResourceStatistics#adaptiveLimit()}: the current limit of the resource's
 *       {@code adaptive} flow rule (the lowest of several); NaN while it has none</td></tr>
 *   <tr><td>{@value #ADAPTIVE_MIN_LIMIT}</td><td>gauge</td><td></td>
 *       <td>the {@code min-limit} of the resource's {@code adaptive} flow rule (the lowest of
 *       several); NaN while it has none</td></tr>
 * </table>
 *
 * <p>The adaptive limit's gauge is registered with the resource's other meters, whatever its rules
 * then: a resource gets its rules after the engine announced it, and rules change at runtime, so a
 * gauge registered only for resources that had an adaptive rule when announced would miss those.
 * Micrometer's "no value", NaN, stands for "no adaptive rule now"; most registries skip it. The
 * same holds for its floor, {@value #ADAPTIVE_MIN_LIMIT}, read from the rules in force when the
 * registry asks: an alert "the limit is pinned at its minimum" compares the two. With several
 * adaptive rules both are the lowest, so "limit at most min" means that the rule with the lowest
 * limit is at its own floor (its limit is the lowest floor, and no rule goes below its own), never
 * a false alarm; a rule pinned at a higher floor while another rule's limit is lower goes unseen.
 *
 * <p>When the engine runs cluster mode ({@link Weir#cluster()}), these engine-wide meters (no
 * {@code resource} tag) describe its store:
 *
 * <table>
 *   <caption>Cluster meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>reads</th></tr>
 *   <tr><td>{@value #CLUSTER_DECISIONS}</td><td>function counter</td><td>{@code outcome} =
 *       {@code admitted}, {@code blocked} (by the store), {@code fallback}</td>
 *       <td>{@link ClusterStatus#admitted()}, {@link ClusterStatus#blocked()},
 *       {@link ClusterStatus#fallbacks()}</td></tr>
 *   <tr><td>{@value #CLUSTER_FALLBACKS}</td><td>function counter</td><td>{@code reason} =
 *       {@code timeout}, {@code error}, {@code breaker_open}, {@code saturated}</td>
 *       <td>{@link ClusterStatus#fallbacks(FallbackReason)}</td></tr>
 *   <tr><td>{@value #CLUSTER_SETTLEMENTS}</td><td>function counter</td><td>{@code outcome} =
 *       {@code settled}, {@code unsettled}</td>
 *       <td>{@link ClusterStatus#settled()}, {@link ClusterStatus#unsettled()}: {@code Entry.settle} of calls
 *       the store admitted, taken by the store or not</td></tr>
 *   <tr><td>{@value #CLUSTER_LATENCY}</td><td>function timer</td><td></td><td>store answers that
 *       arrived in time</td></tr>
 *   <tr><td>{@value #CLUSTER_IN_FLIGHT}</td><td>gauge</td><td></td>
 *       <td>{@link ClusterStatus#inFlight()}</td></tr>
 *   <tr><td>{@value #CLUSTER_BREAKER_STATE}</td><td>gauge, 1 for the current state, else 0</td>
 *       <td>{@code state} = {@code closed}, {@code open}, {@code half_open}</td>
 *       <td>{@link ClusterStatus#breakerState()}</td></tr>
 * </table>
 *
 * <p>The meters read the engine's live counters when the registry asks; they hold the statistics
 * weakly, as Micrometer's function meters do, and add nothing to a guarded call.
 */
public final class WeirMeterBinder implements MeterBinder {

  /** Name of the counter of calls by result. */
  public static final String CALLS = "weir.calls";

  /** Name of the counter of refused calls by rule kind. */
  public static final String BLOCKS = "weir.blocks";

  /** Name of the counter of calls that rules in shadow mode would have refused, by rule kind. */
  public static final String SHADOW_BLOCKS = "weir.blocks.shadow";

  /** Name of the gauge of calls inside a resource now. */
  public static final String ACTIVE = "weir.calls.active";

  /** Name of the gauge of calls waiting for a place under a waiting {@code threads} rule. */
  public static final String WAITING = "weir.calls.waiting";

  /** Name of the timer of completed calls. */
  public static final String DURATION = "weir.call.duration";

  /** Name of the gauge of the circuit state. */
  public static final String CIRCUIT_STATE = "weir.circuit.state";

  /** Name of the gauge of the current limit of a resource's adaptive rule. */
  public static final String ADAPTIVE_LIMIT = "weir.limit.adaptive";

  /** Name of the gauge of the least limit of a resource's adaptive rule ({@code min-limit}). */
  public static final String ADAPTIVE_MIN_LIMIT = "weir.limit.adaptive.min";

  /** Name of the counter of cluster-mode decisions by outcome. */
  public static final String CLUSTER_DECISIONS = "weir.cluster.decisions";

  /** Name of the counter of cluster-mode decisions made by the fallback, by reason. */
  public static final String CLUSTER_FALLBACKS = "weir.cluster.fallbacks";

  /** Name of the counter of settlements of calls the cluster store admitted, by outcome. */
  public static final String CLUSTER_SETTLEMENTS = "weir.cluster.settlements";

  /** Name of the timer of cluster store answers that arrived in time. */
  public static final String CLUSTER_LATENCY = "weir.cluster.latency";

  /** Name of the gauge of decisions waiting for the cluster store. */
  public static final String CLUSTER_IN_FLIGHT = "weir.cluster.inflight";

  /** Name of the gauge of the state of the breaker in front of the cluster store. */
  public static final String CLUSTER_BREAKER_STATE = "weir.cluster.breaker.state";


  private final Weir weir;
  private final Tags tags;

  /**
   * Creates the binder.
   *
   * @param weir the engine whose resources are measured
   * @param tags tags added to every meter, besides {@code resource}
   */
  public WeirMeterBinder(Weir weir, Iterable<Tag> tags) {
    this.weir = weir;
    this.tags = Tags.of(tags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    weir.addResourceListener(statistics -> register(registry, statistics));
    ClusterStatus cluster = weir.cluster();
    if (cluster != null) {
      registerCluster(registry, cluster);
    }
  }

  private void registerCluster(MeterRegistry registry, ClusterStatus cluster) {
    String decisions = "Cluster-mode decisions by outcome: admitted or blocked by the store, or made by the fallback";
    FunctionCounter.builder(CLUSTER_DECISIONS, cluster, ClusterStatus::admitted).description(decisions)
        .tags(tags).tag("outcome", "admitted").register(registry);
    FunctionCounter.builder(CLUSTER_DECISIONS, cluster, ClusterStatus::blocked).description(decisions)
        .tags(tags).tag("outcome", "blocked").register(registry);
    FunctionCounter.builder(CLUSTER_DECISIONS, cluster, ClusterStatus::fallbacks).description(decisions)
        .tags(tags).tag("outcome", "fallback").register(registry);
    for (FallbackReason reason : FallbackReason.values()) {
      FunctionCounter.builder(CLUSTER_FALLBACKS, cluster, status -> status.fallbacks(reason))
          .description("Cluster-mode decisions made by the fallback, by why the store did not decide")
          .tags(tags).tag("reason", reason.name().toLowerCase(Locale.ROOT)).register(registry);
    }
    String settlements = "Settlements (Entry.settle) of calls the cluster store admitted, taken by the store or not";
    FunctionCounter.builder(CLUSTER_SETTLEMENTS, cluster, ClusterStatus::settled).description(settlements)
        .tags(tags).tag("outcome", "settled").register(registry);
    FunctionCounter.builder(CLUSTER_SETTLEMENTS, cluster, ClusterStatus::unsettled).description(settlements)
        .tags(tags).tag("outcome", "unsettled").register(registry);
    FunctionTimer.builder(CLUSTER_LATENCY, cluster, ClusterStatus::latencyCount, ClusterStatus::latencyTotalNanos,
            TimeUnit.NANOSECONDS)
        .description("Wall-clock time of the cluster store's answers that arrived within the deadline")
        .tags(tags).register(registry);
    Gauge.builder(CLUSTER_IN_FLIGHT, cluster, ClusterStatus::inFlight)
        .description("Cluster-mode decisions sent to the store and not yet answered")
        .tags(tags).register(registry);
    for (CircuitState state : CircuitState.values()) {
      Gauge.builder(CLUSTER_BREAKER_STATE, cluster, status -> status.breakerState() == state ? 1 : 0)
          .description("State of the breaker in front of the cluster store: 1 for the current state, else 0")
          .tags(tags).tag("state", state.name().toLowerCase(Locale.ROOT)).register(registry);
    }
  }

  private void register(MeterRegistry registry, ResourceStatistics statistics) {
    Tags resourceTags = tags.and("resource", statistics.resource());
    calls(registry, statistics, resourceTags, "succeeded", ResourceStatistics::totalSucceeded);
    calls(registry, statistics, resourceTags, "failed", ResourceStatistics::totalFailed);
    calls(registry, statistics, resourceTags, "blocked", ResourceStatistics::totalBlocked);
    for (RuleKind kind : RuleKind.values()) {
      FunctionCounter.builder(BLOCKS, statistics, stats -> stats.totalBlocked(kind))
          .description("Calls of a Weir resource refused, by the kind of rule that refused them")
          .tags(resourceTags).tag("rule", kind.tag()).register(registry);
      FunctionCounter.builder(SHADOW_BLOCKS, statistics, stats -> stats.totalShadowBlocked(kind))
          .description("Calls of a Weir resource that rules in shadow mode would have refused (they went on),"
              + " by the kind of rule")
          .tags(resourceTags).tag("rule", kind.tag()).register(registry);
    }
    Gauge.builder(ACTIVE, statistics, ResourceStatistics::activeCalls)
        .description("Admitted calls inside a Weir resource now")
        .tags(resourceTags).register(registry);
    Gauge.builder(WAITING, statistics, ResourceStatistics::waitingCalls)
        .description("Calls of a Weir resource waiting for a place under a threads rule with a max-queueing-time")
        .tags(resourceTags).register(registry);
    FunctionTimer.builder(DURATION, statistics, stats -> stats.totalSucceeded() + stats.totalFailed(),
            ResourceStatistics::totalResponseTimeNanos, TimeUnit.NANOSECONDS)
        .description("Response time of the completed calls of a Weir resource")
        .tags(resourceTags).register(registry);
    for (CircuitState state : CircuitState.values()) {
      Gauge.builder(CIRCUIT_STATE, statistics, stats -> stats.circuitState() == state ? 1 : 0)
          .description("State of the circuit breakers of a Weir resource: 1 for the current state, else 0")
          .tags(resourceTags).tag("state", state.name().toLowerCase(Locale.ROOT)).register(registry);
    }
    Gauge.builder(ADAPTIVE_LIMIT, statistics, WeirMeterBinder::adaptiveLimit)
        .description("Current limit of the adaptive flow rule of a Weir resource: how many calls of the highest"
            + " criticality present may be inside at once (NaN without an adaptive rule)")
        .tags(resourceTags).register(registry);
    Gauge.builder(ADAPTIVE_MIN_LIMIT, statistics, this::adaptiveMinLimit)
        .description("Least limit (min-limit) of the adaptive flow rule of a Weir resource, the lowest of several"
            + " (NaN without an adaptive rule)")
        .tags(resourceTags).register(registry);
  }

  private double adaptiveMinLimit(ResourceStatistics statistics) {
    int min = Integer.MAX_VALUE;
    for (FlowRule rule : weir.rules().rules(statistics.resource()).flow()) {
      if (rule.grade() == FlowGrade.ADAPTIVE) {
        min = Math.min(min, rule.minLimit());
      }
    }
    return min == Integer.MAX_VALUE ? Double.NaN : min;
  }

  private static double adaptiveLimit(ResourceStatistics statistics) {
    int limit = statistics.adaptiveLimit();
    return limit < 0 ? Double.NaN : limit;
  }

  private static void calls(MeterRegistry registry, ResourceStatistics statistics, Tags resourceTags, String result,
      ToDoubleFunction<ResourceStatistics> count) {
    FunctionCounter.builder(CALLS, statistics, count)
        .description("Calls of a Weir resource by result: succeeded, failed (completed with a recorded error)"
            + " or blocked (refused by a rule)")
        .tags(resourceTags).tag("result", result).register(registry);
  }
}
