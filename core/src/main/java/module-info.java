/**
 * Weir's flow-control engine. The API is four packages: {@code dev.weir} (the engine, its entries,
 * refusals, statistics and time source), {@code dev.weir.rule} (the rules and their validation),
 * {@code dev.weir.spi} (custom slots) and {@code dev.weir.cluster} (the cluster store's client).
 * Everything under {@code dev.weir.internal} is the engine's own and is not exported: on the module
 * path it cannot be reached, on the class path it is public only where one of its rooms calls
 * another, and may change in any release.
 */
module dev.weir {
  requires static org.jspecify;
  requires java.management;
  requires static jdk.management;

  exports dev.weir;
  exports dev.weir.rule;
  exports dev.weir.spi;
  exports dev.weir.cluster;

  uses dev.weir.spi.ProcessorSlot;
}
