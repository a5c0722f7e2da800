package dev.weir.spi;

import dev.weir.Criticality;
import dev.weir.EntryType;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ProcessorSlot} sees of one guarded call. Valid only during the slot method it is
 * passed to: the engine reuses the object for later calls of the same thread.
 */
public interface Invocation {

  /** Returns the resource name. */
  String resource();

  /** Returns the direction of the call. */
  EntryType entryType();

  /** Returns how many permits the call asks for (1 unless the caller said otherwise). */
  int acquireCount();

  /** Returns the call arguments given for hot-parameter rules; an empty array when none. Do not modify it. */
  Object[] args();

  /** Returns the name of the context the call runs in; {@code Weir.DEFAULT_CONTEXT} outside any. */
  String contextName();

  /** Returns the caller's identity, or the empty string when unknown. */
  String origin();

  /**
   * Returns the call's criticality: its context's, else the one its caller passed, else
   * {@link Criticality#CRITICAL}.
   */
  default Criticality criticality() {
    return Criticality.CRITICAL;
  }

  /** Returns the failure recorded with {@code Entry.recordError}, or null. Meaningful on exit. */
  @Nullable Throwable error();
}
