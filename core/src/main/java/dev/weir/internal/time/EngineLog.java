package dev.weir.internal.time;

/**
 * The name of the engine's logger, {@value #NAME}: one name for every line the engine writes (a
 * shadow rule's report, a resource or origin beyond the bounds, a failing slot, the cluster
 * store's state), so that one logger setting covers them all. Kept in the lowest room of the
 * engine, so that every room can log without naming the facade.
 */
public final class EngineLog {

  /** The logger's name; what the documentation (docs/) tells users to configure. */
  public static final String NAME = "dev.weir.Weir";

  private EngineLog() {
  }
}
