package dev.weir.internal.call;

import dev.weir.EntryType;
import dev.weir.rule.RuleKind;
import dev.weir.spi.SlotOrder;

/**
 * Records every call in its resource's statistics: a pass once all slots admitted it, a block (by the
 * kind of the refusing rule) when a slot after this one refused it, a completion (success or
 * failure, response time) when it exits. Inbound calls are also recorded in the engine's inbound
 * statistics, which system rules read.
 */
public final class StatisticSlot extends Slot {

  private final StatisticNode inbound;

  public StatisticSlot(StatisticNode inbound) {
    super(SlotOrder.STATISTICS, ADMITTED | BLOCKED | EXIT);
    this.inbound = inbound;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return true;
  }

  @Override
  void admitted(Call call) {
    long now = call.startNanos;
    int count = call.acquireCount;
    call.node.onPass(now, count);
    if (call.entryType == EntryType.IN) {
      inbound.onPass(now, count);
    }
  }

  @Override
  void blocked(Call call) {
    long now = call.startNanos;
    int count = call.acquireCount;
    RuleKind kind = call.refusedKind();
    call.node.onBlock(now, count, kind);
    if (call.entryType == EntryType.IN) {
      inbound.onBlock(now, count, kind);
    }
  }

  @Override
  void exit(Call call) {
    long now = call.endNanos;
    long rt = Math.max(0L, now - call.startNanos);
    int count = call.acquireCount;
    boolean error = call.error != null;
    call.node.onComplete(now, rt, count, error);
    if (call.entryType == EntryType.IN) {
      inbound.onComplete(now, rt, count, error);
    }
  }
}
