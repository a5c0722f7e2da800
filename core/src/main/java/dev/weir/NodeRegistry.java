package dev.weir;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The resource nodes of an engine. A resource that has rules always has a node; other resources get
 * one on first use while fewer than {@code maxResources} exist. Beyond the bound,
 * {@link #forCall} returns null and the call passes unchecked (counted in {@link Overflow}).
 */
final class NodeRegistry {

  private final ConcurrentHashMap<String, ResourceNode> nodes = new ConcurrentHashMap<>();
  private final AtomicInteger unruled = new AtomicInteger();
  private final Engine engine;

  NodeRegistry(Engine engine) {
    this.engine = engine;
  }

  /** The node of a called resource, creating it within the bound; null beyond it. */
  @Nullable ResourceNode forCall(String resource) {
    ResourceNode node = nodes.get(resource);
    return node != null ? node : create(resource);
  }

  private @Nullable ResourceNode create(String resource) {
    if (unruled.get() >= engine.maxResources) {
      engine.overflow.resource(resource);
      return null;
    }
    ResourceNode created = new ResourceNode(resource, engine);
    ResourceNode raced = nodes.putIfAbsent(resource, created);
    if (raced != null) {
      return raced;
    }
    unruled.incrementAndGet();
    engine.attachRules(created);
    engine.resourceCreated(created);
    return created;
  }

  /** The node of a resource that has rules; never refused by the bound. */
  ResourceNode forRules(String resource) {
    ResourceNode node = nodes.get(resource);
    if (node != null) {
      return node;
    }
    ResourceNode created = new ResourceNode(resource, engine);
    ResourceNode raced = nodes.putIfAbsent(resource, created);
    if (raced != null) {
      return raced;
    }
    engine.resourceCreated(created);
    return created;
  }

  @Nullable ResourceNode existing(String resource) {
    return nodes.get(resource);
  }

  Set<String> names() {
    return nodes.keySet();
  }

  Iterable<ResourceNode> all() {
    return nodes.values();
  }
}
