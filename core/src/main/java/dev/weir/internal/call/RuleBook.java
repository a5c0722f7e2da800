package dev.weir.internal.call;

import dev.weir.CircuitBreakerListener;
import dev.weir.KeyExpressions;
import dev.weir.internal.cluster.ClusterGuard;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The rules in force in one engine, per resource, and the nodes that carry them. Every change is
 * made under one lock: it builds the resource's new {@link ResourceRules} (keeping the state of the
 * rules that stay) and publishes it on the node in one volatile write, then in the map that
 * {@link RuleRegistry} reads. The hot path never takes the lock. Input is validated by
 * {@link RuleRegistry} before it reaches here.
 */
public final class RuleBook {

  private final Object lock = new Object();
  private final Map<String, RuleSet> rules = new ConcurrentHashMap<>();
  private final List<Slot> slots;
  private final SystemProtection system;
  private final CircuitBreakerListener listener;
  public final NodeRegistry nodes;
  private final Limiters limiters;
  public final KeyExpressions keys;
  /** The most resources that may have rules: the engine's {@code maxResources}. */
  public final int maxResources;
  /** The rules of a resource without rules: its chain records statistics (and runs custom and system slots). */
  private volatile ResourceRules unruled;

  /**
   * The bounds of an engine that the rule book applies.
   *
   * @param sampleCount the buckets of each resource's one-second statistics window
   * @param maxResources the resources tracked without rules, and the most that may have rules
   * @param maxOrigins the origins of a {@code limit-app: other} rule with a limiter of their own
   * @param maxKeyBytes the estimated heap the keys of one hot-parameter rule may hold
   */
  public record Bounds(int sampleCount, int maxResources, int maxOrigins, long maxKeyBytes) {
  }

  public RuleBook(EngineClock clock, Bounds bounds, Overflow overflow, @Nullable ClusterGuard cluster, List<Slot> slots,
      SystemProtection system, Listeners listeners, KeyExpressions keys) {
    int sampleCount = bounds.sampleCount();
    this.keys = keys;
    this.maxResources = bounds.maxResources();
    this.slots = List.copyOf(slots);
    this.system = system;
    this.listener = listeners;
    this.unruled = ResourceRules.NONE.withChain(this.slots);
    this.nodes = new NodeRegistry(bounds.maxResources(), overflow,
        name -> new ResourceNode(name, sampleCount, clock, unruled), this::attach, listeners::created);
    this.limiters = new Limiters(clock, cluster, nodes::existing, bounds.maxOrigins(), bounds.maxKeyBytes(), overflow);
  }

  /** How many resources have rules. */
  public int resourcesWithRules() {
    return rules.size();
  }

  /** Whether {@code resource} has rules now. */
  boolean hasRules(String resource) {
    return rules.containsKey(resource);
  }

  public RuleSet rules(String resource) {
    return rules.getOrDefault(resource, RuleSet.empty());
  }

  public Map<String, RuleSet> all() {
    return Map.copyOf(rules);
  }

  /** Puts {@code resourceRules} (all naming {@code resource}) in force for the resource. */
  void replace(String resource, RuleSet resourceRules) {
    synchronized (lock) {
      // Build first, publish after: if building the new states throws, neither the map nor the
      // node shows rules that are not in force.
      ResourceNode node = resourceRules.isEmpty() ? nodes.existing(resource) : nodes.forRules(resource);
      ResourceRules built = node == null ? null : node.rules.next(resourceRules, limiters, keys, listener, slots);
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

  /** Applies {@code change} to the rules of {@code resource}, with no other change in between. */
  public void update(String resource, UnaryOperator<RuleSet> change) {
    synchronized (lock) {
      replace(resource, change.apply(rules(resource)));
    }
  }

  /**
   * Computes, under the lock, the new rules of several resources from a reader of the rules in
   * force, and puts them in force, resource by resource, before the lock is released. When
   * {@code change} throws, nothing changed.
   */
  public void update(Function<Function<String, RuleSet>, Map<String, RuleSet>> change) {
    synchronized (lock) {
      change.apply(this::rules).forEach(this::replace);
    }
  }

  /** Replaces every resource's rules by {@code all}, resource by resource. */
  public void load(RuleSet all) {
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

  public SystemRule systemRule() {
    return system.rule();
  }

  /** Puts the system rule in force, and compiles every chain again (the system slot joins or leaves). */
  public void replaceSystemRule(SystemRule rule) {
    synchronized (lock) {
      system.replace(rule);
      unruled = unruled.withChain(slots);
      for (ResourceNode node : nodes.all()) {
        node.rules = node.rules.withChain(slots);
      }
    }
  }

  /** See {@link Weir#reset()}. */
  public void reset() {
    synchronized (lock) {
      for (ResourceNode node : nodes.all()) {
        node.reset();
        node.rules = ResourceRules.NONE.next(rules(node.name), limiters, keys, listener, slots);
      }
      system.inbound.reset();
    }
  }

  /** Gives a node created for a call the rules in force for its resource. */
  private void attach(ResourceNode node) {
    synchronized (lock) {
      node.rules = node.rules.next(rules(node.name), limiters, keys, listener, slots);
    }
  }
}
