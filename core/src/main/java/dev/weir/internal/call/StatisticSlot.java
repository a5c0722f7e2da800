package dev.weir.internal.call;

import dev.weir.EntryType;
import dev.weir.rule.RuleKind;
import dev.weir.spi.SlotOrder;

/**
 * Records every call in its resource's statistics: a pass once all slots admitted it, a block (by the
 * kind of the refusing rule) when a slot after this one refused it, a completion (success or
 * failure, response time) when it exits. Inbound calls are also recorded in the engine's inbound
 * statistics, which system rules read. Each count goes into the cell of the thread that makes it
 * (see {@link StatisticNode}).
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

  /*
   * The cell a call is counted in (see Cells): an entry runs on the thread that owns the call's
   * stack, so it takes the stack's cell; an exit may run on any thread (a call closed elsewhere, an
   * asynchronous call), and takes the stack's cell only on that thread, else the closing thread's
   * shared cell: an owned cell must never have a second writer.
   */

  @Override
  void admitted(Call call) {
    long now = call.startNanos;
    int count = call.acquireCount;
    int cell = call.stack.cell;
    call.node.onPass(now, count, cell);
    if (call.entryType == EntryType.IN) {
      inbound.onPass(now, count, cell);
    }
  }

  @Override
  void blocked(Call call) {
    long now = call.startNanos;
    int count = call.acquireCount;
    RuleKind kind = call.refusedKind();
    int cell = call.stack.cell;
    call.node.onBlock(now, count, kind, cell);
    if (call.entryType == EntryType.IN) {
      inbound.onBlock(now, count, kind, cell);
    }
  }

  @Override
  void exit(Call call) {
    long now = call.endNanos;
    long rt = Math.max(0L, now - call.startNanos);
    int count = call.acquireCount;
    boolean error = call.error != null;
    CallStack stack = call.stack;
    Thread current = Thread.currentThread();
    int cell = current == stack.owner ? stack.cell : Cells.shared(current);
    call.node.onComplete(now, rt, count, error, cell);
    if (call.entryType == EntryType.IN) {
      inbound.onComplete(now, rt, count, error, cell);
    }
  }
}
