package dev.weir.spring.aot;

/** A custom slot as an application would name it in {@code META-INF/services/dev.weir.spi.ProcessorSlot}. */
public final class ServiceSlot extends ServiceSlotBase {

  @Override
  public int order() {
    return 10_000;
  }
}
