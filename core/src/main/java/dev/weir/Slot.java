package dev.weir;

import org.jspecify.annotations.Nullable;

/**
 * One step of a resource's {@link SlotChain}, as the engine sees it: the built-in slots extend this
 * directly and work on the {@link Frame} of the call; a user's {@link dev.weir.spi.ProcessorSlot}
 * joins through {@link CustomSlot}. A slot says which phases it takes part in, so the chain calls it
 * only there, and whether a resource's rules need it at all, so a resource pays only for the slots
 * that do something for it.
 */
abstract class Slot {

  /** Phases, as bits of {@link #phases}. */
  static final int ENTRY = 1;
  static final int ADMITTED = 2;
  static final int BLOCKED = 4;
  static final int EXIT = 8;

  /** Position in the chain; see {@link dev.weir.spi.SlotOrder}. */
  final int order;
  /** The phases this slot takes part in. */
  final int phases;

  Slot(int order, int phases) {
    this.order = order;
    this.phases = phases;
  }

  /** Whether the calls of a resource with {@code rules} go through this slot. */
  abstract boolean neededFor(ResourceRules rules);

  /**
   * Decides the call: true to let it go on; false after {@link Frame#refuse} recorded why it is
   * refused (no exception is made here: {@link Weir#tryEntry} refuses without allocating).
   */
  boolean entry(Frame call) {
    return true;
  }

  /** Every slot admitted the call. */
  void admitted(Frame call) {
  }

  /** A later slot refused a call this slot let through ({@link Frame#refusedKind} says how); undo what was reserved here. */
  void blocked(Frame call) {
  }

  /** The admitted call completed. */
  void exit(Frame call) {
  }
}
