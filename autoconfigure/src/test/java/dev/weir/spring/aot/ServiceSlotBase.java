package dev.weir.spring.aot;

import dev.weir.BlockException;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import org.jspecify.annotations.Nullable;

/** A custom slot's superclass, which declares the phase the slot takes part in. */
public abstract class ServiceSlotBase extends ProcessorSlot {

  @Override
  public @Nullable BlockException entry(Invocation invocation) {
    return null;
  }
}
