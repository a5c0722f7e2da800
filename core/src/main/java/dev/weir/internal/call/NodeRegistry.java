package dev.weir.internal.call;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The resource nodes of an engine. A resource that has rules always has a node; other resources get
 * one on first use while fewer than {@code maxResources} exist. Beyond the bound,
 * {@link #forCall} returns null and the call passes unchecked (counted in {@link Overflow}).
 *
 * <p>A node is published first and given its rules after ({@code attach}, under the rule book's
 * lock), so that a rules change racing the creation either finds the node or is seen by attach.
 */
public final class NodeRegistry {

  private final ConcurrentHashMap<String, ResourceNode> nodes = new ConcurrentHashMap<>();
  private final AtomicInteger unruled = new AtomicInteger();
  private final int maxResources;
  private final Overflow overflow;
  private final Function<String, ResourceNode> create;
  private final Consumer<ResourceNode> attach;
  private final Consumer<ResourceNode> created;

  NodeRegistry(int maxResources, Overflow overflow, Function<String, ResourceNode> create,
      Consumer<ResourceNode> attach, Consumer<ResourceNode> created) {
    this.maxResources = maxResources;
    this.overflow = overflow;
    this.create = create;
    this.attach = attach;
    this.created = created;
  }

  /** The node of a called resource, creating it within the bound; null beyond it. */
  @Nullable ResourceNode forCall(String resource) {
    ResourceNode node = nodes.get(resource);
    return node != null ? node : createForCall(resource);
  }

  /**
   * The node of a resource a handle is resolved for ({@code Weir.resource}), creating it within the
   * bound as a call would; null beyond it, without counting an unchecked call (none was made).
   */
  public @Nullable ResourceNode forHandle(String resource) {
    ResourceNode node = nodes.get(resource);
    return node != null || unruled.get() >= maxResources ? node : createForCall(resource);
  }

  private @Nullable ResourceNode createForCall(String resource) {
    if (unruled.get() >= maxResources) {
      overflow.resource(resource);
      return null;
    }
    ResourceNode fresh = create.apply(resource);
    ResourceNode raced = nodes.putIfAbsent(resource, fresh);
    if (raced != null) {
      return raced;
    }
    unruled.incrementAndGet();
    attach.accept(fresh);
    created.accept(fresh);
    return fresh;
  }

  /** The node of a resource that has rules; never refused by the bound. The caller gives it its rules. */
  ResourceNode forRules(String resource) {
    ResourceNode node = nodes.get(resource);
    if (node != null) {
      return node;
    }
    ResourceNode fresh = create.apply(resource);
    ResourceNode raced = nodes.putIfAbsent(resource, fresh);
    if (raced != null) {
      return raced;
    }
    created.accept(fresh);
    return fresh;
  }

  public @Nullable ResourceNode existing(String resource) {
    return nodes.get(resource);
  }

  public Set<String> names() {
    return nodes.keySet();
  }

  public Iterable<ResourceNode> all() {
    return nodes.values();
  }
}
