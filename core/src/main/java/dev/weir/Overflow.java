package dev.weir;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the engine's bounds turned away, and warns once per kind. Bounds keep memory finite
 * when callers invent unbounded names: resources beyond {@code max-resources} pass unchecked,
 * contexts and origins beyond theirs get no statistics node of their own.
 */
final class Overflow {

  private static final System.Logger LOG = System.getLogger(Weir.class.getName());

  final LongAdder uncheckedCalls = new LongAdder();
  final LongAdder untrackedContexts = new LongAdder();
  final LongAdder untrackedOrigins = new LongAdder();
  private final AtomicBoolean resourceWarned = new AtomicBoolean();
  private final AtomicBoolean contextWarned = new AtomicBoolean();
  private final AtomicBoolean originWarned = new AtomicBoolean();
  private final int maxResources;
  private final int maxContexts;
  private final int maxOrigins;

  Overflow(int maxResources, int maxContexts, int maxOrigins) {
    this.maxResources = maxResources;
    this.maxContexts = maxContexts;
    this.maxOrigins = maxOrigins;
  }

  void resource(String resource) {
    uncheckedCalls.increment();
    if (resourceWarned.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "Weir tracks at most {0} resources (max-resources); calls of further resources such"
          + " as ''{1}'' pass unchecked and are counted as unchecked calls", maxResources, resource);
    }
  }

  void context(String context) {
    untrackedContexts.increment();
    if (contextWarned.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "Weir tracks statistics of at most {0} contexts; context ''{1}'' and further ones"
          + " get none (rules still apply)", maxContexts, context);
    }
  }

  /** A call whose origin gets no statistics node of its own: counted, and warned about once. */
  void origin(String resource, String origin) {
    untrackedOrigins.increment();
    warnOrigins(resource, origin);
  }

  /** An origin sharing the overflow limiter of a {@code limit-app: other} rule: warned about once. */
  void originLimiter(String resource, String origin) {
    warnOrigins(resource, origin);
  }

  private void warnOrigins(String resource, String origin) {
    if (originWarned.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "Weir tracks at most {0} origins per resource; origin ''{1}'' of ''{2}'' and further"
          + " ones share one overflow limiter and get no statistics of their own", maxOrigins, origin, resource);
    }
  }
}
