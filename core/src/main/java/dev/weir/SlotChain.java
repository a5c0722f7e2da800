package dev.weir;

import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import java.util.ArrayList;
import java.util.List;

/**
 * The slots one resource's calls go through, split per phase so that the hot path calls only the
 * slots that do something in that phase: a slot that does not override {@code admitted} is not in
 * {@link #admitted}, and so on. Immutable; a rules change compiles a new one.
 */
final class SlotChain {

  static final SlotChain EMPTY = new SlotChain(new ProcessorSlot[0]);

  /** Every slot, in order; {@code blocked} walks these. */
  final ProcessorSlot[] all;
  final ProcessorSlot[] entry;
  final ProcessorSlot[] admitted;
  /** In reverse order, as exits run. */
  final ProcessorSlot[] exit;
  private final boolean[] hasBlocked;

  SlotChain(ProcessorSlot[] all) {
    this.all = all;
    this.entry = select(all, "entry", false);
    this.admitted = select(all, "admitted", false);
    this.exit = select(all, "exit", true);
    this.hasBlocked = new boolean[all.length];
    for (int i = 0; i < all.length; i++) {
      hasBlocked[i] = overrides(all[i], "blocked");
    }
  }

  /** Tells the slots that come before {@code refuser} that the call was refused. */
  void blocked(ProcessorSlot refuser, Invocation invocation, BlockException block) {
    int end = 0;
    while (end < all.length && all[end] != refuser) {
      end++;
    }
    for (int i = end - 1; i >= 0; i--) {
      if (hasBlocked[i]) {
        all[i].blocked(invocation, block);
      }
    }
  }

  private static ProcessorSlot[] select(ProcessorSlot[] all, String phase, boolean reverse) {
    List<ProcessorSlot> selected = new ArrayList<>();
    for (ProcessorSlot slot : all) {
      if (overrides(slot, phase)) {
        selected.add(slot);
      }
    }
    if (reverse) {
      java.util.Collections.reverse(selected);
    }
    return selected.toArray(ProcessorSlot[]::new);
  }

  private static boolean overrides(ProcessorSlot slot, String phase) {
    Class<?>[] parameters = phase.equals("blocked")
        ? new Class<?>[] {Invocation.class, BlockException.class}
        : new Class<?>[] {Invocation.class};
    for (Class<?> type = slot.getClass(); type != ProcessorSlot.class; type = type.getSuperclass()) {
      try {
        type.getDeclaredMethod(phase, parameters);
        return true;
      } catch (NoSuchMethodException e) {
        // look further up
      }
    }
    return false;
  }
}
