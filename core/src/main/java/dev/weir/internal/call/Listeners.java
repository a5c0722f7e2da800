package dev.weir.internal.call;

import dev.weir.CircuitBreakerListener;
import dev.weir.CircuitState;
import dev.weir.ResourceStatistics;
import dev.weir.internal.limit.Circuit;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.internal.time.EngineLog;
import dev.weir.rule.DegradeRule;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The listeners of one engine: of circuit-breaker transitions (each also logged, at INFO but for a
 * cancelled probe's hand-back and the probe after it, at DEBUG: a caller may cancel as often as it
 * calls, and a line per call would flood the log) and of new resources. A listener that throws is
 * logged and does not stop the others or the call.
 */
public final class Listeners implements CircuitBreakerListener {

  private static final System.Logger LOG = System.getLogger(EngineLog.NAME);

  private final List<CircuitBreakerListener> breakers = new CopyOnWriteArrayList<>();
  private final List<Consumer<ResourceStatistics>> resources = new CopyOnWriteArrayList<>();

  public void add(CircuitBreakerListener listener) {
    breakers.add(listener);
  }

  /** Adds {@code listener} and tells it of {@code existing} at once; later resources as they come. */
  public void add(Consumer<ResourceStatistics> listener, Iterable<? extends ResourceStatistics> existing) {
    synchronized (resources) {
      resources.add(listener);
      for (ResourceStatistics resource : existing) {
        listener.accept(resource);
      }
    }
  }

  /** Tells the resource listeners of a new resource. */
  void created(ResourceStatistics resource) {
    if (resources.isEmpty()) {
      return;
    }
    synchronized (resources) {
      for (Consumer<ResourceStatistics> listener : resources) {
        try {
          listener.accept(resource);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "Resource listener " + listener + " failed for " + resource.resource(), e);
        }
      }
    }
  }

  @Override
  public void onStateChange(DegradeRule rule, CircuitState from, CircuitState to, String reason) {
    boolean handBack = reason.equals(CircuitBreaker.PROBE_CANCELLED) || reason.equals(Circuit.PROBING_AFTER_HAND_BACK);
    LOG.log(handBack ? Level.DEBUG : Level.INFO, "Circuit breaker of ''{0}'' {1} -> {2}: {3}", rule.resource(), from,
        to, reason);
    for (CircuitBreakerListener listener : breakers) {
      try {
        listener.onStateChange(rule, from, to, reason);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Circuit breaker listener " + listener + " failed", e);
      }
    }
  }
}
