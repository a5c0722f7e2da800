package dev.weir.internal.call;

import dev.weir.BlockException;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;

/**
 * A user's {@link ProcessorSlot} in the chain. It sees the call as an {@link Invocation} and takes
 * part in the phases its class overrides (found once, when the engine is built), for every resource.
 */
public final class CustomSlot extends Slot {

  private final ProcessorSlot slot;

  public CustomSlot(ProcessorSlot slot) {
    super(slot.order(), phasesOf(slot));
    this.slot = slot;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return true;
  }

  @Override
  boolean entry(Call call) {
    BlockException refusal = slot.entry(call);
    return refusal == null || call.refuse(refusal);
  }

  @Override
  void admitted(Call call) {
    slot.admitted(call);
  }

  @Override
  void blocked(Call call) {
    slot.blocked(call, call.refusal()); // the refusal is made here only when a custom slot asks for it
  }

  @Override
  void exit(Call call) {
    slot.exit(call);
  }

  @Override
  public String toString() {
    return slot.getClass().getName();
  }

  private static int phasesOf(ProcessorSlot slot) {
    return (overrides(slot, "entry") ? ENTRY : 0) | (overrides(slot, "admitted") ? ADMITTED : 0)
        | (overrides(slot, "blocked") ? BLOCKED : 0) | (overrides(slot, "exit") ? EXIT : 0);
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
