package dev.weir;

import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registered in {@code service-slot/META-INF/services}, which only {@code SlotChainTest} puts on a
 * class loader: counts the admitted calls of the engines built with it.
 */
public final class ServiceSlot extends ProcessorSlot {

  static final AtomicInteger CALLS = new AtomicInteger();

  @Override
  public int order() {
    return 0;
  }

  @Override
  public void admitted(Invocation invocation) {
    CALLS.incrementAndGet();
  }
}
