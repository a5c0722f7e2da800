package dev.weir.spring.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * What observations went through a {@link TestObservationRegistry}: each event with the Weir key
 * values its observation had when the event came (a test registry keeps no events), and each
 * stopped observation with them. Not an {@link ObservationHandler} bean itself, so that Spring Boot
 * does not register it a second time: {@link #registry()} makes the registry it records.
 */
public final class RecordedObservations {

  /** An event of an observation. */
  public record Event(String observation, String event, @Nullable String resource, @Nullable String rule) {
  }

  /** A stopped observation, with its Weir key values (null when absent). */
  public record Stopped(String observation, @Nullable String resource, @Nullable String rule) {
  }

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final List<Stopped> stopped = new CopyOnWriteArrayList<>();

  /** Returns a test registry whose observations are recorded here. */
  public TestObservationRegistry registry() {
    TestObservationRegistry registry = TestObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onEvent(Observation.Event event, Observation.Context context) {
        events.add(new Event(context.getName(), event.getName(), value(context, ObservationRefusalObserver.RESOURCE),
            value(context, ObservationRefusalObserver.RULE)));
      }

      @Override
      public void onStop(Observation.Context context) {
        stopped.add(new Stopped(context.getName(), value(context, ObservationRefusalObserver.RESOURCE),
            value(context, ObservationRefusalObserver.RULE)));
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    return registry;
  }

  private static @Nullable String value(Observation.Context context, String key) {
    KeyValue value = context.getLowCardinalityKeyValue(key);
    return value == null ? null : value.getValue();
  }

  public List<Event> events() {
    return List.copyOf(events);
  }

  /** Waits (at most 10 s) for a stopped observation that {@code matches}, and returns it. */
  public Stopped awaitStopped(Predicate<Stopped> matches) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      for (Stopped observation : stopped) {
        if (matches.test(observation)) {
          return observation;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no stopped observation matched; stopped: " + stopped);
  }

  /** Forgets what was recorded. */
  public void clear() {
    events.clear();
    stopped.clear();
  }
}
