package dev.weir.spring.observation;

import dev.weir.BlockException;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Records each refusal on the current Micrometer {@link Observation}: the low-cardinality key values
 * {@value #RESOURCE} (the refused resource) and {@value #RULE} (the kind of the rule that refused:
 * {@code flow}, {@code degrade}, {@code param-flow}, {@code authority} or {@code system}), then the
 * event {@value #EVENT}. The key values come first, so that a handler that counts events (Micrometer's
 * meter handler makes a counter {@code <observation>.weir.refused} of them) sees them. Several
 * refusals inside one observation are one event each; the key values are the last refusal's.
 *
 * <p>The current observation is the calling thread's ({@link ObservationRegistry#getCurrentObservation()}:
 * a Spring MVC request's, a {@code RestClient} or {@code RestTemplate} call's), or, in a reactive
 * pipeline, the one its Reactor context holds under {@value RefusalObserver#OBSERVATION_KEY} (a WebFlux request's, a
 * {@code WebClient} call's), else the thread's. Without one, or with a no-op one, nothing is recorded.
 */
public final class ObservationRefusalObserver implements RefusalObserver {

  /** The event's name. */
  public static final String EVENT = "weir.refused";
  /** The key of the refused resource. */
  public static final String RESOURCE = "weir.resource";
  /** The key of the kind of the refusing rule. */
  public static final String RULE = "weir.rule";
  private final ObservationRegistry registry;

  /** Creates the observer of the observations of {@code registry}. */
  public ObservationRefusalObserver(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void refused(BlockException refusal) {
    record(registry.getCurrentObservation(), refusal);
  }

  @Override
  public void refused(BlockException refusal, @Nullable Object observation) {
    record(observation instanceof Observation observed ? observed : registry.getCurrentObservation(), refusal);
  }

  private static void record(@Nullable Observation observation, BlockException refusal) {
    if (observation == null || observation.isNoop()) {
      return;
    }
    try {
      observation.lowCardinalityKeyValue(KeyValue.of(RESOURCE, refusal.resource()));
      observation.lowCardinalityKeyValue(KeyValue.of(RULE, refusal.ruleKind().tag()));
      observation.event(Observation.Event.of(EVENT)); // one per refusal: an event carries its wall time
    } catch (RuntimeException handlerFailed) {
      // an observation handler that throws must not turn a refusal into another failure
    }
  }
}
