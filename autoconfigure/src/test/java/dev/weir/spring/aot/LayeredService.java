package dev.weir.spring.aot;

import dev.weir.annotation.RateLimited;

/**
 * A guarded bean two classes below {@link GuardedBase}, whose static fallback is inherited by the
 * class that {@code fallbackClass} names: the lookups walk classes that declare none of the methods.
 */
public class LayeredService extends LayerBetween {

  @RateLimited(fallback = "later", fallbackClass = LayeredFallbacks.Sub.class)
  public String layered() {
    return "layered";
  }
}
