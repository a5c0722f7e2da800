package dev.weir.spring.toplevel.java;

import dev.weir.annotation.RateLimited;

/** A class that is no bean, with a guarded static method: no proxy ever sees its calls. */
public final class Lookups {

  private Lookups() {
  }

  @RateLimited("java.static")
  public static String find(String id) {
    return id;
  }
}
