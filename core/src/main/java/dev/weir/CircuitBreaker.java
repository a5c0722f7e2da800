package dev.weir;

import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The state of one {@link DegradeRule}: closed, open or half-open, over a sliding window of ten
 * buckets covering {@code stat-interval} (Sentinel's breakers count in one tumbling bucket, which
 * forgets everything at each boundary; a sliding window does not).
 *
 * <h2>Transitions, and who makes them</h2>
 * <ul>
 *   <li>CLOSED to OPEN: the thread that completes a call and finds the window over the threshold
 *       (with at least {@code min-request-amount} calls). A CAS on {@link #state} makes exactly one
 *       thread the one that opens it.
 *   <li>OPEN to HALF_OPEN: the first call at or after the retry time, by CAS; that call is the
 *       probe, every other call is refused while it runs.
 *   <li>HALF_OPEN to CLOSED or OPEN: the probe's completion (a slow or failed probe reopens). A
 *       probe refused by a later rule never completes; {@link #probeRefused} reopens the breaker.
 * </ul>
 * Closing starts a fresh window, so failures from before the open period cannot trip it again.
 */
final class CircuitBreaker {

  static final class Bucket extends LeapArray.Bucket {
    final LongAdder total = new LongAdder();
    final LongAdder slow = new LongAdder();
    final LongAdder errors = new LongAdder();

    Bucket(long index) {
      super(index);
    }
  }

  private static final int BUCKETS = 10;

  final DegradeRule rule;
  private final Engine engine;
  private final long slowNanos;
  private final long openNanos;
  private final AtomicReference<CircuitState> state = new AtomicReference<>(CircuitState.CLOSED);
  private volatile long retryAt;
  private volatile LeapArray<Bucket> window;

  CircuitBreaker(DegradeRule rule, Engine engine) {
    this.rule = rule;
    this.engine = engine;
    this.slowNanos = rule.slowCallThreshold().toNanos();
    this.openNanos = rule.openDuration().toNanos();
    this.window = newWindow();
  }

  private LeapArray<Bucket> newWindow() {
    return new LeapArray<>(BUCKETS, rule.statInterval().toNanos(), Bucket::new);
  }

  CircuitState state() {
    return state.get();
  }

  /**
   * Decides for one call: {@code 0} admits, {@code 1} admits it as the probe, a negative value is a
   * refusal encoded as in {@link FlowLimiter}.
   */
  long tryPass(long now) {
    CircuitState current = state.get();
    if (current == CircuitState.CLOSED) {
      return 0;
    }
    if (current == CircuitState.OPEN) {
      long wait = retryAt - now;
      if (wait <= 0 && transition(CircuitState.OPEN, CircuitState.HALF_OPEN, "open duration passed; probing")) {
        return 1;
      }
      return FlowLimiter.refused(Math.max(0, wait));
    }
    return FlowLimiter.refused(0); // a probe is in flight
  }

  /** The probe of this breaker was refused by a later rule: back to open for a whole period. */
  void probeRefused(long now) {
    retryAt = now + openNanos;
    transition(CircuitState.HALF_OPEN, CircuitState.OPEN, "probe refused by another rule");
  }

  /** Records a completed call; {@code probe} when this call was the breaker's probe. */
  void onComplete(long now, long rtNanos, boolean failed, boolean probe) {
    boolean slow = rtNanos > slowNanos;
    if (probe) {
      boolean bad = rule.strategy() == DegradeStrategy.SLOW_RATIO ? slow : failed;
      if (bad) {
        retryAt = now + openNanos;
        transition(CircuitState.HALF_OPEN, CircuitState.OPEN, failed ? "probe failed" : "probe was slow");
      } else {
        window = newWindow();
        transition(CircuitState.HALF_OPEN, CircuitState.CLOSED, "probe succeeded");
      }
      return;
    }
    LeapArray<Bucket> current = window;
    Bucket bucket = current.current(now);
    bucket.total.increment();
    if (slow) {
      bucket.slow.increment();
    }
    if (failed) {
      bucket.errors.increment();
    }
    if (state.get() != CircuitState.CLOSED) {
      return;
    }
    // Only a call that could have changed the verdict re-evaluates it.
    if (rule.strategy() == DegradeStrategy.SLOW_RATIO ? !slow : !failed) {
      return;
    }
    long total = current.sum(now, b -> b.total.sum());
    if (total < rule.minRequestAmount()) {
      return;
    }
    String reason = tripReason(current, now, total);
    if (reason != null) {
      retryAt = now + openNanos;
      transition(CircuitState.CLOSED, CircuitState.OPEN, reason);
    }
  }

  private String tripReason(LeapArray<Bucket> current, long now, long total) {
    double threshold = rule.threshold();
    switch (rule.strategy()) {
      case SLOW_RATIO -> {
        double ratio = (double) current.sum(now, b -> b.slow.sum()) / total;
        boolean trips = ratio > threshold || (ratio == 1.0 && threshold == 1.0);
        return trips ? "slow-call ratio " + ratio + " over " + threshold + " (" + total + " calls)" : null;
      }
      case ERROR_RATIO -> {
        double ratio = (double) current.sum(now, b -> b.errors.sum()) / total;
        return ratio > threshold ? "error ratio " + ratio + " over " + threshold + " (" + total + " calls)" : null;
      }
      case ERROR_COUNT -> {
        long errors = current.sum(now, b -> b.errors.sum());
        return errors > threshold ? errors + " errors over " + threshold + " (" + total + " calls)" : null;
      }
      default -> throw new IllegalStateException(rule.strategy().toString());
    }
  }

  /** Nanoseconds until the next probe may pass; 0 when closed or probing. */
  long retryAfter(long now) {
    return state.get() == CircuitState.OPEN ? Math.max(0, retryAt - now) : 0;
  }

  private boolean transition(CircuitState from, CircuitState to, String reason) {
    if (!state.compareAndSet(from, to)) {
      return false;
    }
    engine.circuitStateChanged(rule, from, to, reason);
    return true;
  }
}
