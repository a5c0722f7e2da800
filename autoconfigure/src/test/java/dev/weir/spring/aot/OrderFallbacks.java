package dev.weir.spring.aot;

/** Static fallbacks named by {@code fallbackClass}. */
final class OrderFallbacks {

  private OrderFallbacks() {
  }

  static String orderFallback(String item, Throwable failure) {
    return "later " + item;
  }

  /** Same name, but not a matching signature: resolution rejects it, so no hint. */
  static String orderFallback(int item) {
    return "never";
  }
}
