package dev.weir.internal;

import dev.weir.CircuitBreakerListener;
import dev.weir.KeyExpressions;
import dev.weir.Sleeper;
import dev.weir.SystemStatus;
import dev.weir.Ticker;
import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import dev.weir.spi.ProcessorSlot;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything an engine is built from, as {@code Weir.Builder} collected it: the values the
 * composition root ({@link Engine}) hands to the rooms, named rather than positional.
 *
 * @param ticker the time source
 * @param sleeper how queued calls wait
 * @param clockResolutionNanos 0 to read the ticker on every call; else how often a thread of the
 *     engine's own reads it for the calls to read ({@code Weir.Builder.clockResolution})
 * @param sampleCount the buckets of the one-second statistics window
 * @param maxResources the resources tracked without rules, and the most that may have rules
 * @param maxOriginsPerResource origins of a {@code limit-app: other} rule with a limiter of their own
 * @param maxKeyBytesPerRule the estimated heap the keys of one hot-parameter rule may hold
 * @param slots the slots the builder added
 * @param loadServiceSlots whether slots registered with {@link java.util.ServiceLoader} join the chain
 * @param classLoader where service slots are loaded from
 * @param rules the rules in force at start
 * @param systemRule the system rule in force at start
 * @param systemStatus where system load and CPU usage are read
 * @param listeners the circuit-breaker listeners added by the builder
 * @param clusterClient the cluster store's client, or null without cluster mode
 * @param clusterOptions the cluster store's options
 * @param keyExpressions what compiles key expressions
 */
public record EngineSettings(Ticker ticker, Sleeper sleeper, long clockResolutionNanos, int sampleCount, int maxResources,
    int maxOriginsPerResource, long maxKeyBytesPerRule, List<ProcessorSlot> slots, boolean loadServiceSlots,
    @Nullable ClassLoader classLoader, RuleSet rules, SystemRule systemRule, SystemStatus systemStatus,
    List<CircuitBreakerListener> listeners, @Nullable ClusterClient clusterClient, ClusterOptions clusterOptions,
    KeyExpressions keyExpressions) {

  /** Copies the lists. */
  public EngineSettings {
    slots = List.copyOf(slots);
    listeners = List.copyOf(listeners);
  }
}
