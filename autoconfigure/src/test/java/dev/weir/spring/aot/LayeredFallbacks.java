package dev.weir.spring.aot;

/** Holds a static fallback that {@link Sub}, the class {@link LayeredService} names, inherits. */
public class LayeredFallbacks {

  static String later(Throwable failure) {
    return "later";
  }

  static String typeDown() {
    return "type down";
  }

  /** Named by {@code fallbackClass}; declares nothing itself. */
  public static final class Sub extends LayeredFallbacks {
  }
}
