package dev.weir;

import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import java.lang.System.Logger.Level;
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
 * <p>The breaker: {@code failureThreshold} consecutive failures open it for {@code openDuration} of
 * the engine's ticker. The first call after that is the only probe (a CAS from OPEN to HALF_OPEN);
 * its success closes the breaker, its failure opens it again. {@code openUntil} is written before
 * the CAS that opens, so a thread that sees OPEN also sees the deadline of that opening.
 */
final class ClusterGuard {

  private static final System.Logger LOG = System.getLogger(Weir.class.getName());
  private static final FallbackReason[] REASONS = FallbackReason.values();

  private static final int CLOSED = 0;
  private static final int OPEN = 1;
  private static final int HALF_OPEN = 2;

  final ClusterClient client;
  final ClusterFallback fallback;
  private final EngineClock clock;
  private final long timeoutNanos;
  private final long openNanos;
  private final int failureThreshold;
  private final int maxInFlight;

  private final AtomicInteger state = new AtomicInteger(CLOSED);
  private volatile long openUntil;
  private final AtomicInteger consecutiveFailures = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final BiConsumer<Object, Throwable> completed = (result, failure) -> inFlight.decrementAndGet();

  final LongAdder admitted = new LongAdder();
  final LongAdder blocked = new LongAdder();
  private final LongAdder[] fallbacks = new LongAdder[REASONS.length];
  final LongAdder latencyCount = new LongAdder();
  final LongAdder latencyNanos = new LongAdder();
  private volatile @Nullable String lastFailure;

  ClusterGuard(ClusterClient client, ClusterOptions options, EngineClock clock) {
    this.client = client;
    this.fallback = options.fallback();
    this.clock = clock;
    this.timeoutNanos = options.timeout().toNanos();
    this.openNanos = options.openDuration().toNanos();
    this.failureThreshold = options.failureThreshold();
    this.maxInFlight = options.maxInFlight();
    for (int i = 0; i < fallbacks.length; i++) {
      fallbacks[i] = new LongAdder();
    }
  }

  /**
   * Asks the store; returns its decision, or null when the fallback must decide (the reason is
   * counted). Never throws what the client throws.
   */
  @Nullable ClusterDecision decide(ClusterCounter counter, int permits, long now) {
    boolean probe = false;
    int current = state.get();
    if (current != CLOSED) {
      if (current == OPEN && now - openUntil >= 0 && state.compareAndSet(OPEN, HALF_OPEN)) {
        probe = true;
      } else {
        return fellBack(FallbackReason.BREAKER_OPEN);
      }
    }
    if (inFlight.incrementAndGet() > maxInFlight) {
      inFlight.decrementAndGet();
      if (probe) {
        reopen(clock.read());
      }
      return fellBack(FallbackReason.SATURATED);
    }
    long start = System.nanoTime();
    CompletableFuture<ClusterDecision> future;
    try {
      future = counter.acquire(permits);
      future.whenComplete(completed);
    } catch (RuntimeException | Error e) {
      inFlight.decrementAndGet();
      return failed(FallbackReason.ERROR, e, probe);
    }
    ClusterDecision decision;
    try {
      decision = future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(false); // lets the client drop a command it has not sent yet
      return failed(FallbackReason.TIMEOUT, null, probe);
    } catch (ExecutionException e) {
      return failed(FallbackReason.ERROR, e.getCause() == null ? e : e.getCause(), probe);
    } catch (CancellationException e) {
      return failed(FallbackReason.ERROR, e, probe);
    } catch (InterruptedException e) {
      // Not the store's fault: restore the flag, fall back, and leave the breaker as it was.
      Thread.currentThread().interrupt();
      if (probe) {
        state.set(OPEN); // openUntil is already past: the next call probes
      }
      return fellBack(FallbackReason.ERROR);
    }
    latencyNanos.add(System.nanoTime() - start);
    latencyCount.increment();
    succeeded(probe);
    (decision.admitted() ? admitted : blocked).increment();
    return decision;
  }

  private void succeeded(boolean probe) {
    if (consecutiveFailures.get() != 0) {
      consecutiveFailures.set(0);
    }
    if (probe) {
      state.set(CLOSED);
      LOG.log(Level.INFO, "Cluster store {0} answers again: cluster-mode rules are counted there again",
          client.description());
    }
  }

  private @Nullable ClusterDecision failed(FallbackReason reason, @Nullable Throwable cause, boolean probe) {
    lastFailure = cause == null ? "no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + "ms"
        : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    long now = clock.read();
    if (probe) {
      reopen(now);
    } else if (consecutiveFailures.incrementAndGet() >= failureThreshold && state.get() == CLOSED) {
      openUntil = now + openNanos;
      if (state.compareAndSet(CLOSED, OPEN)) {
        LOG.log(Level.WARNING, "Cluster store {0} failed {1} times in a row ({2}): cluster-mode rules fall back to "
            + "{3} for {4} ms, then one call probes the store", client.description(), failureThreshold, lastFailure,
            fallback.name().toLowerCase(java.util.Locale.ROOT), TimeUnit.NANOSECONDS.toMillis(openNanos));
      }
    }
    return fellBack(reason);
  }

  private void reopen(long now) {
    openUntil = now + openNanos;
    state.set(OPEN);
  }

  private @Nullable ClusterDecision fellBack(FallbackReason reason) {
    fallbacks[reason.ordinal()].increment();
    return null;
  }

  CircuitState breakerState() {
    return switch (state.get()) {
      case OPEN -> CircuitState.OPEN;
      case HALF_OPEN -> CircuitState.HALF_OPEN;
      default -> CircuitState.CLOSED;
    };
  }

  long fallbacks(FallbackReason reason) {
    return fallbacks[reason.ordinal()].sum();
  }

  int inFlight() {
    return inFlight.get();
  }

  @Nullable String lastFailure() {
    return lastFailure;
  }
}
