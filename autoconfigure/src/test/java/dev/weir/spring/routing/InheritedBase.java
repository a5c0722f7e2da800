package dev.weir.spring.routing;

import dev.weir.annotation.RateLimited;

/** A superclass whose public method carries the annotation. */
abstract class InheritedBase {

  @RateLimited(value = "rt.inherited", blockHandler = "inheritedBlocked")
  public String inherited() {
    return "ok";
  }
}
