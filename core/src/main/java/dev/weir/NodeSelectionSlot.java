package dev.weir;

import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spi.SlotOrder;
import org.jspecify.annotations.Nullable;

/**
 * Picks the statistics nodes a call is recorded in besides its resource node: the
 * (context, resource) node inside a named context and the (resource, origin) node when the caller's
 * origin is known. Calls in the default context without an origin touch nothing here.
 */
final class NodeSelectionSlot extends ProcessorSlot {

  @Override
  public int order() {
    return SlotOrder.NODE_SELECTION;
  }

  @Override
  public @Nullable BlockException entry(Invocation invocation) {
    Frame entry = (Frame) invocation;
    ResourceNode node = entry.node;
    if (!entry.origin.isEmpty()) {
      entry.originNode = node.originNode(entry.origin);
    }
    if (!Weir.DEFAULT_CONTEXT.equals(entry.contextName)) {
      entry.contextNode = node.contextNode(entry.contextName);
    }
    return null;
  }
}
