package dev.weir.internal.call;

import dev.weir.internal.time.EngineLog;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the engine's bounds turned away, and warns once per kind. Bounds keep memory finite
 * when callers invent unbounded names: resources beyond {@code max-resources} pass unchecked,
 * origins of a {@code limit-app: other} rule beyond theirs share one limiter.
 */
public final class Overflow {

  private static final System.Logger LOG = System.getLogger(EngineLog.NAME);

  public final LongAdder uncheckedCalls = new LongAdder();
  private final AtomicBoolean resourceWarned = new AtomicBoolean();
  private final AtomicBoolean originWarned = new AtomicBoolean();
  private final int maxResources;
  private final int maxOrigins;

  public Overflow(int maxResources, int maxOrigins) {
    this.maxResources = maxResources;
    this.maxOrigins = maxOrigins;
  }

  void resource(String resource) {
    uncheckedCalls.increment();
    if (resourceWarned.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "Weir tracks at most {0} resources (max-resources); calls of further resources such"
          + " as ''{1}'' pass unchecked and are counted as unchecked calls", maxResources, resource);
    }
  }

  /** An origin sharing the overflow limiter of a {@code limit-app: other} rule: warned about once. */
  void originLimiter(String resource, String origin) {
    if (originWarned.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "Weir keeps limiters of at most {0} origins per limit-app: other rule; origin ''{1}''"
          + " of ''{2}'' and further ones share one overflow limiter", maxOrigins, origin, resource);
    }
  }
}
