package dev.weir.internal.call;

import dev.weir.internal.time.EngineLog;
import java.util.ArrayList;
import java.util.List;

/**
 * The slots one resource's calls go through, and the one place where a call is entered and exited.
 * Compiled when the resource's rules change (from the engine's slots, less those its rules do not
 * need), split per phase so that each phase calls only the slots that take part in it. Immutable.
 *
 * <h2>The protocol</h2>
 * <ul>
 *   <li>{@link #enter}: the entry slots in order. The first refusal stops the walk; the slots before
 *       the refusing one that take part in {@code blocked} are told, in reverse order; then every
 *       permit the call took is refunded, and the refusal is returned (it is thrown once, at
 *       {@link Weir#entry}). When every slot admits, the {@code admitted} slots are told.
 *   <li>If a slot throws while entering, the call is abandoned (permits refunded, breaker probes
 *       handed back) and the exception goes on to the caller.
 *   <li>{@link #exit}: the exit slots in reverse order, then every permit the call holds is given
 *       back, even when a slot threw.
 * </ul>
 */
final class SlotChain {

  private static final System.Logger LOG = System.getLogger(EngineLog.NAME);

  static final SlotChain EMPTY = new SlotChain(List.of());

  /** Every slot of the chain, in order. */
  private final Slot[] all;
  private final Slot[] entry;
  /** For {@code entry[k]}, its position in {@link #all}. */
  private final int[] entryAt;
  private final Slot[] admitted;
  /** In reverse order, as exits run. */
  private final Slot[] exit;

  SlotChain(List<Slot> ordered) {
    this.all = ordered.toArray(Slot[]::new);
    List<Slot> entries = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    List<Slot> admits = new ArrayList<>();
    List<Slot> exits = new ArrayList<>();
    for (int i = 0; i < all.length; i++) {
      Slot slot = all[i];
      if ((slot.phases & Slot.ENTRY) != 0) {
        entries.add(slot);
        positions.add(i);
      }
      if ((slot.phases & Slot.ADMITTED) != 0) {
        admits.add(slot);
      }
      if ((slot.phases & Slot.EXIT) != 0) {
        exits.add(0, slot);
      }
    }
    this.entry = entries.toArray(Slot[]::new);
    this.entryAt = positions.stream().mapToInt(Integer::intValue).toArray();
    this.admitted = admits.toArray(Slot[]::new);
    this.exit = exits.toArray(Slot[]::new);
  }

  /** The chain of {@code slots} (in order) that a resource with {@code rules} needs. */
  static SlotChain compile(List<Slot> slots, ResourceRules rules) {
    List<Slot> needed = new ArrayList<>(slots.size());
    for (Slot slot : slots) {
      if (slot.neededFor(rules)) {
        needed.add(slot);
      }
    }
    return new SlotChain(needed);
  }

  /**
   * Runs the entry of {@code call}; returns true when admitted, else false with the refusal recorded
   * in the frame ({@link Call#refusedKind}). See the class comment.
   */
  boolean enter(Call call) {
    try {
      for (int k = 0; k < entry.length; k++) {
        if (!entry[k].entry(call)) {
          refuse(entryAt[k], call);
          return false;
        }
      }
      for (Slot slot : admitted) {
        slot.admitted(call);
      }
      return true;
    } catch (RuntimeException | Error e) {
      call.abandon();
      throw e;
    }
  }

  private void refuse(int refuser, Call call) {
    for (int i = refuser - 1; i >= 0; i--) {
      if ((all[i].phases & Slot.BLOCKED) != 0) {
        all[i].blocked(call);
      }
    }
    call.refundHeld();
  }

  /** Runs the exit of an admitted {@code call}, then gives back what it holds. */
  void exit(Call call) {
    try {
      for (Slot slot : exit) {
        try {
          slot.exit(call);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.ERROR, "Slot " + slot + " failed on exit of " + call.resource, e);
        }
      }
    } finally {
      call.releaseHeld(); // even when a slot threw an Error: the call's places are given back
    }
  }
}
