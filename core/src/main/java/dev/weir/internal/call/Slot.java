package dev.weir.internal.call;


/**
 * One step of a resource's {@link SlotChain}, as the engine sees it: the built-in slots extend this
 * directly and work on the {@link Call} of the call; a user's {@link dev.weir.spi.ProcessorSlot}
 * joins through {@link CustomSlot}. A slot says which phases it takes part in, so the chain calls it
 * only there, and whether a resource's rules need it at all, so a resource pays only for the slots
 * that do something for it.
 */
public abstract class Slot {

  /** Phases, as bits of {@link #phases}. */
  static final int ENTRY = 1;
  static final int ADMITTED = 2;
  static final int BLOCKED = 4;
  static final int EXIT = 8;

  /** Position in the chain; see {@link dev.weir.spi.SlotOrder}. */
  public final int order;
  /** The phases this slot takes part in. */
  final int phases;

  Slot(int order, int phases) {
    this.order = order;
    this.phases = phases;
  }

  /** Whether the calls of a resource with {@code rules} go through this slot. */
  abstract boolean neededFor(ResourceRules rules);

  /**
   * Decides the call: true to let it go on; false after {@link Call#refuse} recorded why it is
   * refused (no exception is made here: {@link Weir#tryEntry} refuses without allocating).
   */
  boolean entry(Call call) {
    return true;
  }

  /** Every slot admitted the call. */
  void admitted(Call call) {
  }

  /** A later slot refused a call this slot let through ({@link Call#refusedKind} says how); undo what was reserved here. */
  void blocked(Call call) {
  }

  /** The admitted call completed. */
  void exit(Call call) {
  }
}
