package dev.weir.internal.cluster;

import dev.weir.CircuitState;
import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import dev.weir.internal.limit.Circuit;
import dev.weir.internal.limit.ConcurrencyLimiter;
import dev.weir.internal.time.EngineClock;
import dev.weir.internal.time.EngineLog;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The failure policy between an engine and its {@link ClusterClient}, shared by every cluster-mode
 * rule of the engine (they all depend on the one store).
 *
 * <p>One decision: (1) while the breaker is open the store is not asked; (2) at most
 * {@code maxInFlight} decisions may be outstanding, counted from the request until the future
 * completes (answered, failed, or cancelled at the deadline), so a burst of callers against a slow
 * store sends a bounded number of commands and the others fall back at once; a store that hangs
 * for longer gets at most {@code failureThreshold} timed-out commands (plus those of callers already
 * waiting) before the breaker opens, then one probe per {@code openDuration}; (3) the caller waits on the future for at most
 * {@code timeout}, on its own thread, so no thread or queue is added by the engine. A missed deadline
 * is a failure and is not retried; the future is cancelled, so that a client can drop a command it
 * has not sent yet. One already sent may still run on the store, which can only count a call that
 * was decided locally, never lose one.
 *
 * <p>The breaker is a {@link Circuit}, the same state machine as a degrade rule's breaker (see
 * there for the protocol); what the guard judges stays here. {@code failureThreshold} consecutive
 * failures of calls of one closed period open it for {@code openDuration} of the engine's ticker
 * (the count of failures in a row rides in the circuit's CLOSED phase, so each close starts it at
 * 0). The first call after that is the only probe (a CAS from OPEN to HALF_OPEN); its success
 * closes the breaker, its failure opens it again, and a probe that found the in-flight bound
 * reached opens it again too. A probe whose caller is interrupted before an answer is handed back:
 * the breaker is open with its period over, and the next call probes.
 *
 * <p>What the shared machine adds to the guard (documented, and tested in
 * {@code ClusterGuardCircuitTest}):
 * <ul>
 *   <li>A probe timeout of {@code openDuration + timeout}: the probe's caller gives up on the store
 *       after {@code timeout}, so a probe still outstanding an open period later is lost (a client
 *       whose {@code acquire} blocks, an {@link Error} out of the caller); it counts as failed and
 *       the next call probes, instead of leaving the breaker half-open for ever. Probes are stamped
 *       with their call's reading, so the lost probe's late outcome decides nothing.
 *   <li>A failure counts in the closed period its call started in: a call that started before the
 *       breaker opened and fails after a probe closed it again (a deadline longer than the open
 *       duration) does not count towards opening the new period. When {@code openDuration} is
 *       below {@link Circuit#HORIZON_STEP_NANOS} such a straggler may still count, as every
 *       failure did before.
 *   <li>A late reading is decided at the circuit's horizon: as before it never probes before the
 *       open period ends, and now, like a punctual one, it may probe once the horizon shows the
 *       period over.
 * </ul>
 */
public final class ClusterGuard {

  private static final FallbackReason[] REASONS = FallbackReason.values();

  public final ClusterClient client;
  public final ClusterFallback fallback;
  /** Whether cluster-mode rules lease blocks of permits ({@link LeasedFlowLimiter}) rather than ask per call. */
  public final boolean lease;
  final EngineClock clock;
  private final long timeoutNanos;
  private final long openNanos;
  private final int failureThreshold;
  private final int maxInFlight;

  /** The breaker; each closed period carries its count of consecutive failures. */
  private final Circuit<AtomicInteger> circuit;
  /**
   * The decisions in flight, bounded by {@code maxInFlight}: a place is taken only below the bound
   * (the threads limiter's CAS, which jcstress covers), so the count never reads above it.
   */
  private final ConcurrencyLimiter inFlight;
  private final BiConsumer<Object, Throwable> completed;

  public final LongAdder admitted = new LongAdder();
  public final LongAdder blocked = new LongAdder();
  private final LongAdder[] fallbacks = new LongAdder[REASONS.length];
  public final LongAdder latencyCount = new LongAdder();
  public final LongAdder latencyNanos = new LongAdder();
  /** Lease round trips sent (grants, refusals and "ask later" alike), give-backs not included. */
  public final LongAdder leaseRequests = new LongAdder();
  /** Permits the store granted in leases. */
  public final LongAdder leasedPermits = new LongAdder();
  /** Permits of leases not spent and given back (sent; a store that lost the lease ignores them). */
  public final LongAdder returnedPermits = new LongAdder();
  /** Settlements of calls ({@code Entry.settle}) the store took. */
  public final LongAdder settled = new LongAdder();
  /**
   * Settlements the store did not take: it failed or missed the deadline, its breaker was open,
   * {@code maxInFlight} round trips were out, or it cannot settle.
   */
  public final LongAdder unsettled = new LongAdder();
  /** The last failure and when (wall clock, for people: the page and the endpoint show it); one write. */
  private volatile @Nullable Failure lastFailure;
  /** The one WARN when calls start falling back, the one INFO when the store decides again. */
  private final FallbackLog fallbackLog;
  /** Ends leases nobody spends from and round trips nobody waits for; started at the first lease. */
  final LeaseTimer timer = new LeaseTimer();
  /**
   * Sends renewals ahead of time on a thread of its own, with the engine on its own coarse clock
   * (the default on the real clock: {@link EngineClock#resolutionNanos()} above zero); null when every
   * call reads the ticker (a driven ticker in tests, or {@code clockResolution(ZERO)}), where the
   * calling thread sends them, so that a test driving time sees each renewal in the order of its calls.
   */
  final @Nullable LeaseRenewer renewer;
  /** The recent lease round trips, from wanting a renewal to installing it; shared by the engine's leases. */
  final RoundTripTimes roundTrips = new RoundTripTimes();

  public ClusterGuard(ClusterClient client, ClusterOptions options, EngineClock clock) {
    this(client, options, clock, options.lease() && clock.resolutionNanos() > 0);
  }

  /** With {@code renewalThread}: renewals ahead go through a {@link LeaseRenewer}, whatever the ticker; for tests. */
  ClusterGuard(ClusterClient client, ClusterOptions options, EngineClock clock, boolean renewalThread) {
    this.client = client;
    this.fallback = options.fallback();
    this.lease = options.lease();
    this.clock = clock;
    this.renewer = renewalThread ? new LeaseRenewer() : null;
    this.timeoutNanos = options.timeout().toNanos();
    this.openNanos = options.openDuration().toNanos();
    this.failureThreshold = options.failureThreshold();
    this.maxInFlight = options.maxInFlight();
    this.inFlight = new ConcurrencyLimiter(maxInFlight);
    this.completed = (result, failure) -> inFlight.release(1);
    for (int i = 0; i < fallbacks.length; i++) {
      fallbacks[i] = new LongAdder();
    }
    this.fallbackLog = new FallbackLog(System.getLogger(EngineLog.NAME), client::description, fallback, openNanos,
        this::fallbackCause,
        clock.read());
    this.circuit = new Circuit<>(openNanos, probeTimeoutNanos(options), AtomicInteger::new, this::transition);
  }

  /** The probe timeout: one open period past the probe's own deadline; see the class comment. */
  static long probeTimeoutNanos(ClusterOptions options) {
    return options.openDuration().toNanos() + options.timeout().toNanos();
  }

  /**
   * Tells the log when the breaker closes: a probe answered, so the store decides again (the
   * {@link FallbackLog}'s "answers again", at most once per open period). Opening is told by the
   * first fallback, which comes before the breaker opens.
   */
  private void transition(CircuitState from, CircuitState to, String reason) {
    if (to == CircuitState.CLOSED) {
      fallbackLog.answered(clock.read(), true);
    }
  }

  /** {@link #enter}: the store may be asked, as an ordinary call. */
  static final int NORMAL = 0;
  /** {@link #enter}: the store may be asked, and this call is the breaker's probe. */
  static final int PROBE = 1;
  /** {@link #enter}: the breaker is open, the store must not be asked. */
  static final int OPEN = -1;
  /** {@link #enter}: {@code maxInFlight} round trips are outstanding, the store must not be asked. */
  static final int SATURATED = -2;

  /**
   * Asks the store; returns its decision, or null when the fallback must decide (the reason is
   * counted). Never throws what the client throws.
   */
  public @Nullable ClusterDecision decide(ClusterCounter counter, int permits, long now) {
    int entered = enter(now);
    if (entered < 0) {
      return fellBack(entered == OPEN ? FallbackReason.BREAKER_OPEN : FallbackReason.SATURATED, now);
    }
    boolean probe = entered == PROBE; // stamped with now
    long start = System.nanoTime();
    CompletableFuture<ClusterDecision> future;
    try {
      future = counter.acquire(permits);
      track(future);
    } catch (RuntimeException | Error e) {
      inFlight.release(1);
      failed(FallbackReason.ERROR, e, now, probe);
      return fellBack(FallbackReason.ERROR, now);
    }
    ClusterDecision decision;
    try {
      decision = future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(false); // lets the client drop a command it has not sent yet
      failed(FallbackReason.TIMEOUT, null, now, probe);
      return fellBack(FallbackReason.TIMEOUT, now);
    } catch (ExecutionException e) {
      failed(FallbackReason.ERROR, e.getCause() == null ? e : e.getCause(), now, probe);
      return fellBack(FallbackReason.ERROR, now);
    } catch (CancellationException e) {
      failed(FallbackReason.ERROR, e, now, probe);
      return fellBack(FallbackReason.ERROR, now);
    } catch (InterruptedException e) {
      // Not the store's fault: restore the flag, fall back, and leave the breaker as it was.
      Thread.currentThread().interrupt();
      if (probe) {
        circuit.probeHandedBack(now, "probe's caller interrupted"); // the next call probes
      }
      return fellBack(FallbackReason.ERROR, now);
    }
    answered(now, probe, System.nanoTime() - start);
    (decision.admitted() ? admitted : blocked).increment();
    return decision;
  }

  /*
   * Settling a call the store admitted (Entry.settle, through ClusterFlowLimiter and ClusterGroup):
   * one command on the state the call was counted in, found by the decision's stamp, which the
   * call's token carries. The caller never waits for it: the client's command is asynchronous, and
   * the command is cancelled (dropped if not yet written) once the deadline has passed. It is sent
   * only while the breaker is closed and a place in flight is free; it neither probes nor counts
   * towards the breaker (a settlement is not a decision, and a store that fails is found by the
   * decisions). What the store does not take: a refund is dropped, so the store keeps those permits
   * counted until they leave its window (the safe side: it refuses sooner, never admits more); a
   * debt is kept by the limiter (UnsentDebt) and carried by its next settlement that is sent, so a
   * debt is paid late rather than never while the limiter settles calls. Each counts in unsettled.
   * A settlement that missed its deadline may still have been applied by a store that received it;
   * its debt is then counted twice, again on the safe side.
   */

  /**
   * Settles, by {@code delta} (and the debts {@code unsent} kept), the call the store admitted with
   * {@code token} ({@link ClusterFlowLimiter#storeAdmitted}); never waits. See the comment above.
   */
  void settle(ClusterCounter counter, long token, long delta, long now, UnsentDebt unsent) {
    long net = UnsentDebt.saturatedSum(delta, unsent.take());
    if (net == 0) {
      return;
    }
    if (!closed() || inFlight.tryAcquire(1, now) < 0) {
      notSettled(net, unsent);
      return;
    }
    CompletableFuture<?> future;
    try {
      future = counter.settle(ClusterFlowLimiter.stampOf(token), net);
      track(future);
    } catch (RuntimeException | Error e) {
      inFlight.release(1);
      notSettled(net, unsent);
      return;
    }
    future.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((result, failure) -> {
      if (failure == null) {
        settled.increment();
      } else {
        future.cancel(false); // lets the client drop a command it has not sent yet
        notSettled(net, unsent);
      }
    });
  }

  private void notSettled(long net, UnsentDebt unsent) {
    unsettled.increment();
    if (net > 0) {
      unsent.add(net);
    }
  }

  /**
   * Whether a round trip to the store may start now, the breaker and the in-flight bound as for
   * {@link #decide}: {@link #NORMAL} or {@link #PROBE} (then one place in flight is taken: hand the
   * round trip's future to {@link #track}, or call {@link #untrack} if none was made), else
   * {@link #OPEN} or {@link #SATURATED}. Counts no fallback: the caller counts the calls it decides.
   */
  int enter(long now) {
    long verdict = circuit.tryPass(now);
    if (verdict < 0) {
      return OPEN;
    }
    boolean probe = verdict == Circuit.PROBE; // stamped with now
    if (inFlight.tryAcquire(1, now) < 0) {
      if (probe) {
        circuit.probeFailed(now, clock.read(), "probe found " + maxInFlight + " decisions in flight");
      }
      return SATURATED;
    }
    return probe ? PROBE : NORMAL;
  }

  /**
   * Whether round trips are failing at {@code now}: the breaker is not closed, or the round trips of
   * its closed period failed one or more times in a row. Lease round trips are then waited for by
   * the call that started them only ({@link LeasedFlowLimiter}).
   */
  boolean failing(long now) {
    Circuit.Phase<AtomicInteger> period = circuit.closedPeriod(now);
    return period == null || period.window().get() != 0;
  }

  /** Gives back the place in flight of a round trip the store will not see its future of. */
  void untrack() {
    inFlight.release(1);
  }

  /** Frees the round trip's place in flight when {@code future} completes, normally, exceptionally or cancelled. */
  void track(CompletableFuture<?> future) {
    future.whenComplete(completed);
  }

  /** The store answered a round trip that entered at {@code start}, in {@code latencyNanos}. */
  void answered(long start, boolean probe, long latencyNanos) {
    recordLatency(latencyNanos);
    succeeded(start, probe);
  }

  private void recordLatency(long nanos) {
    latencyNanos.add(nanos);
    latencyCount.increment();
  }

  /** The store answered the call that started at {@code start} (the probe's stamp if {@code probe}). */
  private void succeeded(long start, boolean probe) {
    fallbackLog.answered(start, false);
    if (probe) {
      // Closing starts a new period with its own count at 0; a stale probe decides nothing.
      circuit.probeSucceeded(start, clock.read(), "probe answered");
      return;
    }
    // The reset is not atomic with other calls' increments (a failure between the read and the
    // write is forgotten): a success only ever lowers the count, never opens the breaker.
    Circuit.Phase<AtomicInteger> period = circuit.closedPeriod(start);
    if (period != null && period.window().get() != 0) {
      period.window().set(0);
    }
  }

  /**
   * A round trip that entered at {@code start} failed ({@code cause} null: it missed its deadline):
   * counted towards the breaker, once per round trip, whatever number of calls waited for it.
   */
  void failed(FallbackReason reason, @Nullable Throwable cause, long start, boolean probe) {
    lastFailure = new Failure(cause == null ? "no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + "ms"
        : cause.getClass().getSimpleName() + ": " + cause.getMessage(), System.currentTimeMillis());
    long now = clock.read();
    if (probe) {
      circuit.probeFailed(start, now, "probe failed");
    } else {
      // Counted in the closed period the call started in; the trip is a CAS from that period, so
      // of the calls that reach the threshold together one opens it, and a period that ended
      // meanwhile is not opened again.
      Circuit.Phase<AtomicInteger> period = circuit.closedPeriod(start);
      if (period != null && period.window().incrementAndGet() >= failureThreshold) {
        circuit.trip(period, now, failureThreshold + " failures in a row");
      }
    }
  }

  /** A probe whose caller could not wait for it (interrupted): the next call probes. */
  void probeHandedBack(long start) {
    circuit.probeHandedBack(start, "probe's caller interrupted");
  }

  /**
   * Counts one call decided by the fallback for {@code reason} at {@code now} (the first of a spell is
   * logged, see {@link FallbackLog}); returns null, for {@link #decide}.
   */
  @Nullable ClusterDecision fellBack(FallbackReason reason, long now) {
    fallbacks[reason.ordinal()].increment();
    fallbackLog.fellBack(reason, now);
    return null;
  }

  /** What the WARN names as the cause of a fallback for {@code reason}. */
  private String fallbackCause(FallbackReason reason) {
    String failure = lastFailure();
    return switch (reason) {
      case SATURATED -> maxInFlight + " decisions already waiting for it";
      case BREAKER_OPEN -> "breaker open" + (failure == null ? "" : " after " + failure);
      default -> failure == null ? reason.name().toLowerCase(java.util.Locale.ROOT) : failure;
    };
  }

  /** The deadline of one round trip, in nanoseconds. */
  long timeoutNanos() {
    return timeoutNanos;
  }

  /** Whether the breaker lets a round trip through now without it being a probe; for give-backs. */
  boolean closed() {
    return circuit.state() == CircuitState.CLOSED;
  }

  /** Stops the renewal thread and the lease timer, and gives back what the open leases did not spend. */
  public void close() {
    LeaseRenewer renewing = renewer;
    if (renewing != null) {
      renewing.close();
    }
    timer.close();
  }

  public CircuitState breakerState() {
    return circuit.state();
  }

  public long fallbacks(FallbackReason reason) {
    return fallbacks[reason.ordinal()].sum();
  }

  public int inFlight() {
    return inFlight.inside();
  }

  public @Nullable String lastFailure() {
    Failure failure = lastFailure;
    return failure == null ? null : failure.text;
  }

  /** When the last failure happened, in milliseconds since the epoch; 0 when there was none. */
  public long lastFailureEpochMillis() {
    Failure failure = lastFailure;
    return failure == null ? 0 : failure.atEpochMillis;
  }

  /** A failure and its wall-clock time, published together. */
  private record Failure(String text, long atEpochMillis) {
  }
}
