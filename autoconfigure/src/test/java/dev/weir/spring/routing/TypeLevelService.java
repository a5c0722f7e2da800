package dev.weir.spring.routing;

import dev.weir.annotation.RateLimited;

/** A type-level annotation: every public method is a resource, with the type's defaultFallback. */
@RateLimited(defaultFallback = "lastResort")
class TypeLevelService implements Services.TypeLevel {

  @Override
  public String covered(String mode) {
    if (mode.equals("fail")) {
      throw new IllegalStateException("covered failed");
    }
    return "ok";
  }

  @Override
  @RateLimited(value = "rt.own", fallback = "ownFallback", exceptionsToTrace = IllegalArgumentException.class)
  public String own(String mode) {
    if (mode.equals("fail")) {
      throw new IllegalStateException("not traced here");
    }
    return "ok";
  }

  String ownFallback(String mode, IllegalArgumentException e) {
    return "own-fallback";
  }

  @Override
  public String covered2() {
    return "ok";
  }

  String lastResort(Throwable t) {
    return "default:" + t.getClass().getSimpleName();
  }
}
