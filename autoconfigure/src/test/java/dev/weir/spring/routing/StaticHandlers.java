package dev.weir.spring.routing;

import dev.weir.BlockException;

/** Static handlers in a class of their own. */
final class StaticHandlers {

  private StaticHandlers() {
  }

  static String blocked(String id, BlockException e) {
    return "static-block:" + id;
  }

  private static String failed(String id, Throwable t) {
    return "static-fallback:" + id + ":" + t.getMessage();
  }
}
