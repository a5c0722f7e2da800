package dev.weir;

import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import java.util.concurrent.atomic.AtomicInteger;

/** Registered in the test META-INF/services: counts admitted calls of every engine. */
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
