package dev.weir;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The context names an engine keeps statistics for, bounded by {@code maxContexts}. */
final class ContextRegistry {

  private final Set<String> names = ConcurrentHashMap.newKeySet();
  private final int maxContexts;
  private final Overflow overflow;

  ContextRegistry(int maxContexts, Overflow overflow) {
    this.maxContexts = maxContexts;
    this.overflow = overflow;
  }

  /** Returns whether {@code context} is, or may now become, a tracked context. */
  boolean admit(String context) {
    if (names.contains(context)) {
      return true;
    }
    // size() then add() may let a few racing threads past the bound; the bound is about memory,
    // and a handful over it is harmless.
    if (names.size() >= maxContexts) {
      overflow.context(context);
      return false;
    }
    names.add(context);
    return true;
  }
}
