package dev.weir.spi;

import dev.weir.BlockException;
import org.jspecify.annotations.Nullable;

/**
 * One step of the slot chain that every guarded call passes through.
 *
 * <p>On entry the engine calls {@link #entry} on each slot in ascending {@link #order()}. The first
 * slot that returns a {@link BlockException} stops the walk: the slots before it get
 * {@link #blocked} (in reverse order, so they can undo what they reserved) and the engine throws the
 * exception to the caller, once. When every slot admits, each gets {@link #admitted}; when the call
 * completes, each gets {@link #exit} in reverse order.
 *
 * <p>Implementations must be thread-safe and fast: they run on every call. A slot must not throw;
 * it signals a refusal by returning the exception. Register a custom slot in
 * {@code META-INF/services/dev.weir.spi.ProcessorSlot} (it needs a public no-argument constructor;
 * each engine gets its own instance) or pass it to {@code Weir.builder().slot(...)}.
 */
public abstract class ProcessorSlot {

  /** For subclasses. */
  protected ProcessorSlot() {
  }

  /** Returns the position of this slot in the chain; see {@link SlotOrder} for the built-in ones. */
  public abstract int order();

  /**
   * Decides whether the call may go on.
   *
   * @return {@code null} to admit, or the exception that refuses the call
   */
  public @Nullable BlockException entry(Invocation invocation) {
    return null;
  }

  /** Called when every slot admitted the call. */
  public void admitted(Invocation invocation) {
  }

  /** Called when a later slot refused a call this slot had admitted. */
  public void blocked(Invocation invocation, BlockException block) {
  }

  /** Called when an admitted call completes. */
  public void exit(Invocation invocation) {
  }
}
