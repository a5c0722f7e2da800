package dev.weir.spring.aot;

import dev.weir.annotation.RateLimited;

/** {@code @RateLimited} on the type, naming a fallbackClass for its defaultFallback. */
@RateLimited(defaultFallback = "typeDown", fallbackClass = LayeredFallbacks.Sub.class)
public class TypeLevelHolderService {

  public String any() {
    return "any";
  }
}
