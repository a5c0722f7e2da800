package dev.weir.internal;

import dev.weir.internal.call.AuthoritySlot;
import dev.weir.internal.call.CallStack;
import dev.weir.internal.call.CustomSlot;
import dev.weir.internal.call.DegradeSlot;
import dev.weir.internal.call.FlowSlot;
import dev.weir.internal.call.Listeners;
import dev.weir.internal.call.NodeRegistry;
import dev.weir.internal.call.Overflow;
import dev.weir.internal.call.ParamFlowSlot;
import dev.weir.internal.call.RuleBook;
import dev.weir.internal.call.Slot;
import dev.weir.internal.call.StatisticSlot;
import dev.weir.internal.call.SystemProtection;
import dev.weir.internal.call.SystemSlot;
import dev.weir.internal.cluster.ClusterGuard;
import dev.weir.internal.time.EngineClock;
import dev.weir.spi.ProcessorSlot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * The composition root: builds one engine's parts from its {@link EngineSettings}, each room given
 * what it reads and nothing else, in the order they need each other (the clock first, the rule book
 * last). The facade ({@code dev.weir.Weir}) only holds what this builds; the rules of the settings
 * are put in force by the facade, through its {@code RuleRegistry}, so that they are validated as
 * any later change.
 */
public final class Engine {

  /** The engine's time. */
  public final EngineClock clock;
  /** Resources beyond the bounds: counted and warned about. */
  public final Overflow overflow;
  /** The user's listeners of resources and circuit breakers. */
  public final Listeners listeners = new Listeners();
  /** The system rule and the inbound statistics it reads. */
  public final SystemProtection system;
  /** The cluster store's guard, or null without cluster mode. */
  public final @Nullable ClusterGuard cluster;
  /** The rules in force and the nodes that carry them. */
  public final RuleBook book;
  /** The resources' nodes; what a call looks its resource up in. */
  public final NodeRegistry nodes;
  /** Each thread's open calls and context. */
  public final CallStack.PerThread stacks;

  private Engine(EngineSettings settings) {
    this.clock = new EngineClock(settings.ticker(), settings.sleeper(), settings.clockResolutionNanos(), this);
    this.overflow = new Overflow(settings.maxResources(), settings.maxOriginsPerResource());
    settings.listeners().forEach(listeners::add);
    this.system = new SystemProtection(settings.sampleCount(), settings.systemStatus());
    this.cluster = settings.clusterClient() == null ? null
        : new ClusterGuard(settings.clusterClient(), settings.clusterOptions(), clock);
    this.book = new RuleBook(clock, new RuleBook.Bounds(settings.sampleCount(), settings.maxResources(),
        settings.maxOriginsPerResource(), settings.maxKeyBytesPerRule()), overflow, cluster, slots(settings),
        system, listeners, settings.keyExpressions());
    this.nodes = book.nodes;
    this.stacks = new CallStack.PerThread(clock);
  }

  /** Builds the parts of an engine; nothing is in force yet. */
  public static Engine build(EngineSettings settings) {
    return new Engine(settings);
  }

  /** The built-in slots, the service-loaded and the builder's, in order. */
  private List<Slot> slots(EngineSettings settings) {
    List<Slot> slots = new ArrayList<>();
    slots.add(new StatisticSlot(system.inbound));
    slots.add(new AuthoritySlot());
    slots.add(new SystemSlot(system));
    slots.add(new ParamFlowSlot(clock));
    slots.add(new FlowSlot(clock));
    slots.add(new DegradeSlot(clock));
    if (settings.loadServiceSlots()) {
      for (ProcessorSlot slot : ServiceLoader.load(ProcessorSlot.class, settings.classLoader())) {
        slots.add(new CustomSlot(slot));
      }
    }
    for (ProcessorSlot slot : settings.slots()) {
      slots.add(new CustomSlot(slot));
    }
    slots.sort(Comparator.comparingInt(slot -> slot.order));
    return slots;
  }
}
