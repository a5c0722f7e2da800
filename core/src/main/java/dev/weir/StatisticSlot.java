package dev.weir;

import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spi.SlotOrder;

/**
 * Records every call in its nodes: a pass once all slots admitted it, a block when a slot after this
 * one refused it, a completion (success or failure, response time) when it exits. Inbound calls are
 * also recorded in the engine's inbound node, which system rules read.
 */
final class StatisticSlot extends ProcessorSlot {

  private final StatisticNode inbound;

  StatisticSlot(StatisticNode inbound) {
    this.inbound = inbound;
  }

  @Override
  public int order() {
    return SlotOrder.STATISTICS;
  }

  @Override
  public void admitted(Invocation invocation) {
    Frame entry = (Frame) invocation;
    long now = entry.startNanos;
    int count = entry.acquireCount;
    entry.node.onPass(now, count);
    StatisticNode node = entry.originNode;
    if (node != null) {
      node.onPass(now, count);
    }
    node = entry.contextNode;
    if (node != null) {
      node.onPass(now, count);
    }
    if (entry.entryType == EntryType.IN) {
      inbound.onPass(now, count);
    }
  }

  @Override
  public void blocked(Invocation invocation, BlockException block) {
    Frame entry = (Frame) invocation;
    long now = entry.startNanos;
    int count = entry.acquireCount;
    entry.node.onBlock(now, count, block.ruleKind());
    StatisticNode node = entry.originNode;
    if (node != null) {
      node.onBlock(now, count);
    }
    node = entry.contextNode;
    if (node != null) {
      node.onBlock(now, count);
    }
    if (entry.entryType == EntryType.IN) {
      inbound.onBlock(now, count);
    }
  }

  @Override
  public void exit(Invocation invocation) {
    Frame entry = (Frame) invocation;
    long now = entry.endNanos;
    long rt = Math.max(0L, now - entry.startNanos);
    int count = entry.acquireCount;
    boolean error = entry.error != null;
    entry.node.onComplete(now, rt, count, error);
    StatisticNode node = entry.originNode;
    if (node != null) {
      node.onComplete(now, rt, count, error);
    }
    node = entry.contextNode;
    if (node != null) {
      node.onComplete(now, rt, count, error);
    }
    if (entry.entryType == EntryType.IN) {
      inbound.onComplete(now, rt, count, error);
    }
  }
}
