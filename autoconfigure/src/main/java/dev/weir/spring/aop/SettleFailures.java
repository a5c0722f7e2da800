package dev.weir.spring.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * How many calls of each resource kept their estimate because the {@code settle} expression of its
 * {@code @RateLimited} method gave no cost: a null result, an evaluation that failed, or a value that
 * is not a whole number of 0 or more. The resources are those of the methods with a {@code settle}
 * expression, known as their classes are inspected (at the latest by the startup check); a meter
 * binder learns of each through {@link #onResource}.
 */
public final class SettleFailures {

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final List<Consumer<String>> listeners = new ArrayList<>();

  SettleFailures() {
  }

  /**
   * Returns the counter of {@code resource}, declaring the resource on first use. The listeners are
   * told outside the lock; one added meanwhile copied the resource under it instead: each is told
   * of each resource once.
   */
  LongAdder counter(String resource) {
    LongAdder counter;
    List<Consumer<String>> told;
    synchronized (listeners) {
      counter = counts.get(resource);
      if (counter != null) {
        return counter;
      }
      counter = new LongAdder();
      counts.put(resource, counter);
      told = List.copyOf(listeners);
    }
    told.forEach(listener -> listener.accept(resource));
    return counter;
  }

  /** Returns the resources whose methods have a {@code settle} expression, inspected so far. */
  public Set<String> resources() {
    return Set.copyOf(counts.keySet());
  }

  /** Returns how many calls of {@code resource} kept their estimate for want of a cost; 0 for an unknown resource. */
  public long failures(String resource) {
    LongAdder counter = counts.get(resource);
    return counter == null ? 0 : counter.sum();
  }

  /**
   * Tells {@code listener} of every resource with a {@code settle} expression: at once of those known,
   * later of each new one (on the thread that inspects its class).
   */
  public void onResource(Consumer<String> listener) {
    List<String> known;
    synchronized (listeners) {
      listeners.add(listener);
      known = List.copyOf(counts.keySet());
    }
    known.forEach(listener);
  }
}
