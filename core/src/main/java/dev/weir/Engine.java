package dev.weir;

import dev.weir.rule.FlowRule;
import dev.weir.spi.ProcessorSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The internals of one {@link Weir} engine: clock, bounds, nodes, rules in force and the slots.
 * Package-private so that the public surface stays {@link Weir}, {@link Entry} and the rule types.
 */
final class Engine {

  final EngineClock clock;
  final int sampleCount;
  final int maxResources;
  final int maxContexts;
  final int maxOrigins;
  final Overflow overflow;
  final ContextRegistry contexts;
  final NodeRegistry nodes;
  final StatisticNode inbound;
  private ProcessorSlot[] slots = new ProcessorSlot[0];
  private final Map<String, List<FlowRule>> flowRules = new ConcurrentHashMap<>();
  private final Object rulesLock = new Object();

  Engine(Ticker ticker, Sleeper sleeper, int sampleCount, int maxResources, int maxContexts, int maxOrigins) {
    this.clock = new EngineClock(ticker, sleeper);
    this.sampleCount = sampleCount;
    this.maxResources = maxResources;
    this.maxContexts = maxContexts;
    this.maxOrigins = maxOrigins;
    this.overflow = new Overflow(maxResources, maxContexts, maxOrigins);
    this.contexts = new ContextRegistry(maxContexts, overflow);
    this.inbound = new StatisticNode(sampleCount);
    this.nodes = new NodeRegistry(this);
  }

  void setSlots(List<ProcessorSlot> ordered) {
    this.slots = ordered.toArray(ProcessorSlot[]::new);
  }

  /**
   * The chain a resource's calls go through: every slot, less the built-in rule slots that have no
   * rule for this resource. A resource without rules costs node selection and statistics only.
   */
  ProcessorSlot[] chainFor(ResourceNode node) {
    List<ProcessorSlot> chain = new ArrayList<>(slots.length);
    for (ProcessorSlot slot : slots) {
      if (slot instanceof FlowSlot && node.flow.isEmpty()) {
        continue;
      }
      chain.add(slot);
    }
    return chain.toArray(ProcessorSlot[]::new);
  }

  List<FlowRule> flowRules(String resource) {
    return flowRules.getOrDefault(resource, List.of());
  }

  Map<String, List<FlowRule>> flowRules() {
    return Map.copyOf(flowRules);
  }

  /** Puts {@code rules} in force for {@code resource}; validated by the caller. */
  void replaceFlowRules(String resource, List<FlowRule> rules) {
    synchronized (rulesLock) {
      if (rules.isEmpty()) {
        flowRules.remove(resource);
        ResourceNode node = nodes.existing(resource);
        if (node != null) {
          apply(node);
        }
      } else {
        flowRules.put(resource, List.copyOf(rules));
        apply(nodes.forRules(resource));
      }
    }
  }

  /** Gives a newly created node the rules in force for its resource. */
  void attachRules(ResourceNode node) {
    synchronized (rulesLock) {
      apply(node);
    }
  }

  private void apply(ResourceNode node) {
    node.flow = node.flow.replace(flowRules(node.name), this);
    node.chain = chainFor(node);
  }
}
