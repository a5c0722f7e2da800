package dev.weir.spring.observation;

import dev.weir.BlockException;
import org.jspecify.annotations.Nullable;

/**
 * Told of each refusal that Weir's integrations meet (a route's, an {@code @RateLimited} method's,
 * an outgoing call's), on the refusal path only: an admitted call never reaches it. With Micrometer's
 * {@code ObservationRegistry}, the auto-configured {@link ObservationRefusalObserver} records the
 * refusal on the observation of the request it happened in; else {@link #none()} ignores it.
 * Implementations must be thread-safe and must not throw.
 */
public interface RefusalObserver {

  /** Tells of {@code refusal}, met on the calling thread (whose current observation it belongs to). */
  void refused(BlockException refusal);

  /**
   * The Reactor context key under which Micrometer keeps the current observation of a reactive
   * pipeline ({@code ObservationThreadLocalAccessor.KEY}): a WebFlux request's, a {@code WebClient}
   * call's. Reactive callers pass what their context holds under it to
   * {@link #refused(BlockException, Object)}.
   */
  String OBSERVATION_KEY = "micrometer.observation";

  /**
   * Tells of {@code refusal}, met in a reactive pipeline whose Reactor context holds
   * {@code observation} under {@link #OBSERVATION_KEY} (null when it holds none: then the calling
   * thread's observation is the current one). The parameter is an {@code Object} so that no Reactor
   * or Micrometer type is named here: Spring reads the methods of beans, and this interface must
   * load in applications without them.
   */
  void refused(BlockException refusal, @Nullable Object observation);

  /** Returns the observer that ignores every refusal. */
  static RefusalObserver none() {
    return Ignored.INSTANCE;
  }

  /** Ignores every refusal. */
  enum Ignored implements RefusalObserver {
    INSTANCE;

    @Override
    public void refused(BlockException refusal) {
    }

    @Override
    public void refused(BlockException refusal, @Nullable Object observation) {
    }
  }
}
