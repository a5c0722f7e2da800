package dev.weir.spring.aot;

import dev.weir.annotation.RateLimited;

/** A superclass declaring a guarded method and its defaultFallback, inherited by {@link TypeLevelService}. */
public abstract class GuardedBase {

  @RateLimited(defaultFallback = "baseDown")
  public String inherited() {
    return "inherited";
  }

  String baseDown() {
    return "base down";
  }
}
