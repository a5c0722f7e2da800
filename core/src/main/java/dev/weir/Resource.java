package dev.weir;

import dev.weir.internal.call.CallStack;
import dev.weir.internal.call.NodeRegistry;
import dev.weir.internal.call.ResourceNode;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A handle on one resource of an engine, resolved once by {@link Weir#resource(String)}: its
 * {@code entry}, {@code tryEntry} and {@code asyncEntry} make the same decisions as the methods of
 * {@link Weir} of the same name for this resource, without looking the name up on every call. Keep
 * one for each resource a component guards (an aspect per method, a filter per route) and call it
 * from any thread.
 *
 * <p>It follows rule changes: a call reads the resource's rules in force when it starts, as a call
 * through {@code Weir} does, whether the rules were replaced before or after the handle was made.
 * Statistics are the resource's own, shared with calls by name. A handle resolved while the engine
 * tracks its {@code maxResources} resources without rules already is not refused: its calls then
 * look the name up each time, and pass unchecked (counted) until the resource has a node, exactly
 * as calls by name do. A handle holds its engine: the engine stays usable while a handle is.
 */
public final class Resource {

  private final Weir weir;
  private final String name;
  private final CallStack.PerThread stacks;
  private final NodeRegistry nodes;
  /** The resource's node, or null when it was beyond the engine's bound at resolution (then looked up per call). */
  private final @Nullable ResourceNode node;

  Resource(Weir weir, String name, CallStack.PerThread stacks, NodeRegistry nodes, @Nullable ResourceNode node) {
    this.weir = weir;
    this.name = name;
    this.stacks = stacks;
    this.nodes = nodes;
    this.node = node;
  }

  /*
   * The entry methods are kept at most 35 bytes of bytecode each, so that the JIT inlines them into
   * their callers, for the reasons given above Weir.entry.
   */

  /** Guards an outbound call asking for one permit; see {@link Weir#entry(String)}. */
  public Entry entry() {
    return stacks.current().entry(node, name, EntryType.OUT, 1, null, nodes, Criticality.CRITICAL);
  }

  /** Guards a call in direction {@code type} asking for one permit; see {@link Weir#entry(String, EntryType)}. */
  public Entry entry(EntryType type) {
    return stacks.current().entry(node, name, type, 1, null, nodes, Criticality.CRITICAL);
  }

  /**
   * Guards a call; see {@link Weir#entry(String, EntryType, int, Object...)}.
   *
   * @param type the direction; system rules apply to {@link EntryType#IN} only
   * @param permits permits to take, at least 1
   * @param args the call's arguments, for hot-parameter rules; may be null
   * @return the entry to close when the call completes
   * @throws BlockException when a rule refuses the call
   */
  public Entry entry(EntryType type, int permits, Object @Nullable ... args) {
    return stacks.current().entry(node, name, type, permits, args, nodes, Criticality.CRITICAL);
  }

  /**
   * Guards a call with {@code criticality} unless the thread's context gave one; see
   * {@link Weir#entry(String, EntryType, int, Criticality, Object[])}.
   */
  public Entry entry(EntryType type, int permits, Criticality criticality, Object @Nullable [] args) {
    return stacks.current().entry(node, name, type, permits, args, nodes, Objects.requireNonNull(criticality));
  }

  /**
   * Guards a call without arguments, answering a refusal with null: nothing thrown, nothing
   * allocated; see {@link Weir#tryEntry(String, EntryType, int)}.
   */
  public @Nullable Entry tryEntry(EntryType type, int permits) {
    return stacks.current().tryEntry(node, name, type, permits, null, nodes, Criticality.CRITICAL);
  }

  /** As {@link #tryEntry(EntryType, int)} with the call's arguments, for hot-parameter rules. */
  public @Nullable Entry tryEntry(EntryType type, int permits, Object @Nullable ... args) {
    return stacks.current().tryEntry(node, name, type, permits, args, nodes, Criticality.CRITICAL);
  }

  /** As {@link #tryEntry(EntryType, int, Object...)}, with {@code criticality} unless the thread's context gave one. */
  public @Nullable Entry tryEntry(EntryType type, int permits, Criticality criticality, Object @Nullable [] args) {
    return stacks.current().tryEntry(node, name, type, permits, args, nodes, Objects.requireNonNull(criticality));
  }

  /**
   * Guards an asynchronous call, whose entry is closed when its work completes, from any thread;
   * see {@link Weir#asyncEntry(String, EntryType, int, Object...)}.
   *
   * @throws BlockException when a rule refuses the call
   */
  public Entry asyncEntry(EntryType type, int permits, Object @Nullable ... args) {
    return stacks.current().asyncEntry(node, name, type, permits, args, nodes, Criticality.CRITICAL);
  }

  /** As {@link #asyncEntry(EntryType, int, Object...)}, with {@code criticality} unless the thread's context gave one. */
  public Entry asyncEntry(EntryType type, int permits, Criticality criticality, Object @Nullable [] args) {
    return stacks.current().asyncEntry(node, name, type, permits, args, nodes, Objects.requireNonNull(criticality));
  }

  /** What the rate rules of this resource have left for a call with {@code args}; see {@link Weir#quotas}. */
  public List<Quota> quotas(Object @Nullable ... args) {
    return weir.quotas(name, args);
  }

  /** The live statistics of this resource, or null while it is beyond the engine's bound. */
  public @Nullable ResourceStatistics statistics() {
    return weir.statistics(name);
  }

  /**
   * An estimate of the cost of this resource's next call, learnt from the costs its calls settled
   * at ({@link Entry#settle}): a running 95th percentile of the recent settled costs, rounded up
   * (by at most a quarter), in fixed memory per resource; {@code fallback} until a call has settled.
   * Pass it as the permits of the next entry, so that most calls settle with a refund and few with a
   * debt. It follows a change in costs within a few thousand settles.
   */
  public long costEstimate(long fallback) {
    ResourceNode at = node != null ? node : nodes.existing(name);
    return at == null ? fallback : at.costEstimate(fallback);
  }

  /** The resource's name. */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "Resource{" + name + "}";
  }
}
