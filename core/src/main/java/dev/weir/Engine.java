package dev.weir;

import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.AuthorityRule;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import dev.weir.spi.ProcessorSlot;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The internals of one {@link Weir} engine: clock, bounds, nodes, rules in force, slots, listeners
 * and the system sampler. Package-private so that the public surface stays {@link Weir},
 * {@link Entry} and the rule types.
 *
 * <p>Rules are stored per resource. Every change goes through {@link #replace} under one lock,
 * which rebuilds the node's rule states (reusing the state of equal rules) and its slot chain, and
 * publishes them with volatile writes; the hot path never takes the lock.
 */
final class Engine {

  private static final System.Logger LOG = System.getLogger(Weir.class.getName());

  final EngineClock clock;
  final int sampleCount;
  final int maxResources;
  final int maxContexts;
  final int maxOrigins;
  final Overflow overflow;
  final ContextRegistry contexts;
  final NodeRegistry nodes;
  final StatisticNode inbound;
  private final SystemSampler sampler;
  final @Nullable ClusterGuard cluster;
  private final List<CircuitBreakerListener> listeners = new CopyOnWriteArrayList<>();
  private final List<java.util.function.Consumer<ResourceStatistics>> resourceListeners = new CopyOnWriteArrayList<>();
  private ProcessorSlot[] slots = new ProcessorSlot[0];
  private final Map<String, RuleSet> rules = new ConcurrentHashMap<>();
  private volatile SystemRule systemRule = SystemRule.NONE;
  private final Object lock = new Object();

  Engine(Ticker ticker, Sleeper sleeper, int sampleCount, int maxResources, int maxContexts, int maxOrigins,
      SystemStatus systemStatus, @Nullable ClusterClient clusterClient, ClusterOptions clusterOptions) {
    this.clock = new EngineClock(ticker, sleeper);
    this.sampleCount = sampleCount;
    this.maxResources = maxResources;
    this.maxContexts = maxContexts;
    this.maxOrigins = maxOrigins;
    this.overflow = new Overflow(maxResources, maxContexts, maxOrigins);
    this.contexts = new ContextRegistry(maxContexts, overflow);
    this.inbound = new StatisticNode(sampleCount);
    this.nodes = new NodeRegistry(this);
    this.sampler = new SystemSampler(systemStatus);
    this.cluster = clusterClient == null ? null : new ClusterGuard(clusterClient, clusterOptions, clock);
  }

  void setSlots(List<ProcessorSlot> ordered) {
    this.slots = ordered.toArray(ProcessorSlot[]::new);
  }

  /**
   * The chain a resource's calls go through: every slot, less the built-in rule slots that have no
   * rule for this resource. A resource without rules costs node selection and statistics only.
   */
  SlotChain chainFor(ResourceRules rules) {
    List<ProcessorSlot> chain = new ArrayList<>(slots.length);
    for (ProcessorSlot slot : slots) {
      boolean idle = slot instanceof FlowSlot && rules.flow.isEmpty()
          || slot instanceof DegradeSlot && rules.breakers.length == 0
          || slot instanceof ParamFlowSlot && rules.paramFlow.length == 0
          || slot instanceof AuthoritySlot && rules.authority.length == 0
          || slot instanceof SystemSlot && !systemRule.isActive();
      if (!idle) {
        chain.add(slot);
      }
    }
    return new SlotChain(chain.toArray(ProcessorSlot[]::new));
  }

  RuleSet rules(String resource) {
    return rules.getOrDefault(resource, RuleSet.empty());
  }

  Map<String, RuleSet> rules() {
    return Map.copyOf(rules);
  }

  /** Puts {@code resourceRules} (all naming {@code resource}, validated) in force for the resource. */
  void replace(String resource, RuleSet resourceRules) {
    synchronized (lock) {
      // Build first, publish after: if building the new states throws, neither the registry nor
      // the node shows rules that are not in force.
      ResourceNode node = resourceRules.isEmpty() ? nodes.existing(resource) : nodes.forRules(resource);
      ResourceRules built = node == null ? null : build(node, resourceRules);
      if (resourceRules.isEmpty()) {
        rules.remove(resource);
      } else {
        rules.put(resource, resourceRules);
      }
      if (node != null) {
        node.rules = built;
      }
    }
  }

  /** Applies {@code change} to the rules of {@code resource} atomically with respect to other changes. */
  void update(String resource, java.util.function.UnaryOperator<RuleSet> change) {
    synchronized (lock) {
      replace(resource, change.apply(rules(resource)));
    }
  }

  /** Replaces every resource's rules by {@code all} (validated), resource by resource. */
  void load(RuleSet all) {
    synchronized (lock) {
      Map<String, RuleSet> next = new HashMap<>();
      for (String resource : all.resources()) {
        next.put(resource, all.forResource(resource));
      }
      for (String resource : rules.keySet()) {
        next.putIfAbsent(resource, RuleSet.empty());
      }
      next.forEach(this::replace);
    }
  }

  SystemRule systemRule() {
    return systemRule;
  }

  void replaceSystemRule(SystemRule rule) {
    synchronized (lock) {
      systemRule = rule;
      sampler.configure(rule.maxLoad() != null || rule.maxCpuUsage() != null);
      for (ResourceNode node : nodes.all()) {
        ResourceRules rules = node.rules;
        node.rules = rules.withChain(chainFor(rules));
      }
    }
  }

  double sampledLoad() {
    return sampler.load();
  }

  double sampledCpuUsage() {
    return sampler.cpuUsage();
  }

  /** Reads load and CPU now instead of waiting for the next sample (tests). */
  void sampleSystemNow() {
    sampler.sample();
  }

  /** Gives a newly created node the rules in force for its resource. */
  void attachRules(ResourceNode node) {
    synchronized (lock) {
      apply(node);
    }
  }

  /** Publishes, in one write, the rules in force for {@code node}'s resource. */
  private void apply(ResourceNode node) {
    node.rules = build(node, rules(node.name));
  }

  /**
   * Forgets every statistic and every rule's state (windows, queues, warm-up, circuits), keeping the
   * rules: each resource is as it was when its rules were first put in force.
   */
  void reset() {
    synchronized (lock) {
      for (ResourceNode node : nodes.all()) {
        node.reset();
        node.rules = build(ResourceRules.NONE, rules(node.name));
      }
      inbound.reset();
    }
  }

  /** Builds {@code current} for {@code node}, keeping the live state of rules already in force. */
  private ResourceRules build(ResourceNode node, RuleSet current) {
    return build(node.rules, current);
  }

  /** Builds {@code current}, keeping the live state of the rules of {@code old} that stay in force. */
  private ResourceRules build(ResourceRules old, RuleSet current) {
    ResourceRules next = new ResourceRules(
        old.flow.replace(current.flow(), this),
        reuse(old.breakers, current.degrade(), b -> b.rule, r -> new CircuitBreaker(r, this::circuitStateChanged), CircuitBreaker[]::new),
        reuse(old.paramFlow, current.paramFlow(), s -> s.rule, r -> new ParamFlowRuleState(r, this),
            ParamFlowRuleState[]::new),
        current.authority().toArray(AuthorityRule[]::new),
        SlotChain.EMPTY);
    return next.withChain(chainFor(next));
  }

  /** New states for {@code rules}, keeping the state of every rule that is already in force. */
  private static <R, S> S[] reuse(S[] old, List<R> rules, Function<S, R> ruleOf, Function<R, S> create,
      java.util.function.IntFunction<S[]> array) {
    Map<R, S> kept = new HashMap<>();
    for (S state : old) {
      kept.put(ruleOf.apply(state), state);
    }
    S[] next = array.apply(rules.size());
    for (int i = 0; i < next.length; i++) {
      S state = kept.get(rules.get(i));
      next[i] = state != null ? state : create.apply(rules.get(i));
    }
    return next;
  }

  /** Tells {@code listener} of every resource: those known now at once, later ones when created. */
  void addResourceListener(java.util.function.Consumer<ResourceStatistics> listener) {
    synchronized (resourceListeners) {
      resourceListeners.add(listener);
      for (ResourceNode node : nodes.all()) {
        listener.accept(node);
      }
    }
  }

  void resourceCreated(ResourceNode node) {
    if (resourceListeners.isEmpty()) {
      return;
    }
    synchronized (resourceListeners) {
      for (java.util.function.Consumer<ResourceStatistics> listener : resourceListeners) {
        try {
          listener.accept(node);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "Resource listener " + listener + " failed for " + node.name, e);
        }
      }
    }
  }

  void addListener(CircuitBreakerListener listener) {
    listeners.add(listener);
  }

  void circuitStateChanged(DegradeRule rule, CircuitState from, CircuitState to, String reason) {
    LOG.log(Level.INFO, "Circuit breaker of ''{0}'' {1} -> {2}: {3}", rule.resource(), from, to, reason);
    for (CircuitBreakerListener listener : listeners) {
      try {
        listener.onStateChange(rule, from, to, reason);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Circuit breaker listener " + listener + " failed", e);
      }
    }
  }

  void close() {
    sampler.configure(false);
  }

}
