package dev.weir;

import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import dev.weir.internal.cluster.ClusterGuard;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Live counters and breaker state of an engine's cluster mode; see {@link Weir#cluster()}. Every
 * method reads the current value; counts only grow.
 *
 * <p>Each cluster-mode decision is counted exactly once: by the store ({@link #admitted()},
 * {@link #blocked()}) or by the fallback ({@link #fallbacks(FallbackReason)}). With leases
 * ({@link ClusterOptions#lease()}) a call admitted from a lease the store granted counts as admitted
 * by the store, and a call refused because the store refused a lease as blocked by it.
 */
public final class ClusterStatus {

  private final ClusterGuard guard;
  private final ClusterOptions options;

  ClusterStatus(ClusterGuard guard, ClusterOptions options) {
    this.guard = guard;
    this.options = options;
  }

  /** Returns where the store is, as the client describes it. */
  public String description() {
    return guard.client.description();
  }

  /** Starts a round trip to the store that does nothing else (see {@link dev.weir.cluster.ClusterClient#ping()}). */
  public CompletableFuture<?> ping() {
    return guard.client.ping();
  }

  /**
   * Returns the live instances the store last reported ({@link dev.weir.cluster.ClusterClient#liveInstances()});
   * 0 when unknown.
   */
  public int liveInstances() {
    return guard.client.liveInstances();
  }

  /** Returns the options in force. */
  public ClusterOptions options() {
    return options;
  }

  /** Returns the state of the breaker in front of the store. */
  public CircuitState breakerState() {
    return guard.breakerState();
  }

  /** Returns the decisions in which the store admitted the call (or a lease it granted did). */
  public long admitted() {
    return guard.admitted.sum();
  }

  /** Returns the settlements of calls the store admitted ({@link Entry#settle}) that the store took. */
  public long settled() {
    return guard.settled.sum();
  }

  /**
   * Returns the settlements of calls the store admitted ({@link Entry#settle}) that it did not take:
   * it failed or missed the deadline, its breaker was open, too many round trips were in flight, or
   * the client cannot settle. Their refunds stay counted in the store; their debts are kept and sent
   * with the rule's next settlement.
   */
  public long unsettled() {
    return guard.unsettled.sum();
  }

  /** Returns the decisions in which the store refused the call. */
  public long blocked() {
    return guard.blocked.sum();
  }

  /** Returns the decisions the fallback made for {@code reason}. */
  public long fallbacks(FallbackReason reason) {
    return guard.fallbacks(reason);
  }

  /** Returns the decisions the fallback made, for every reason. */
  public long fallbacks() {
    long sum = 0;
    for (FallbackReason reason : FallbackReason.values()) {
      sum += guard.fallbacks(reason);
    }
    return sum;
  }

  /**
   * Returns the lease round trips sent ({@code weir.cluster.lease}): each asks the store for a block
   * of permits; give-backs are not counted.
   */
  public long leaseRequests() {
    return guard.leaseRequests.sum();
  }

  /** Returns the permits the store granted in leases. */
  public long leasedPermits() {
    return guard.leasedPermits.sum();
  }

  /** Returns the permits of leases that were not spent and were given back to the store. */
  public long returnedPermits() {
    return guard.returnedPermits.sum();
  }

  /** Returns how many store answers arrived in time (the count of {@link #latencyTotalNanos()}). */
  public long latencyCount() {
    return guard.latencyCount.sum();
  }

  /** Returns the summed wall-clock time of the store answers that arrived in time, in nanoseconds. */
  public long latencyTotalNanos() {
    return guard.latencyNanos.sum();
  }

  /** Returns the decisions sent to the store and not yet answered (including ones given up on). */
  public int inFlight() {
    return guard.inFlight();
  }

  /** Returns the last failure (error or missed deadline), or null when there was none. */
  public @Nullable String lastFailure() {
    return guard.lastFailure();
  }

  /**
   * Returns when the {@linkplain #lastFailure() last failure} happened, by this host's wall clock,
   * or null when there was none.
   */
  public @Nullable Instant lastFailureTime() {
    long millis = guard.lastFailureEpochMillis();
    return millis == 0 ? null : Instant.ofEpochMilli(millis);
  }
}
