package dev.weir;

import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The state of one {@link DegradeRule}: closed, open or half-open, over a sliding window of ten
 * buckets covering {@code stat-interval} (Sentinel's breakers count in one tumbling bucket, which
 * forgets everything at each boundary; a sliding window does not).
 *
 * <h2>Transitions, and who makes them</h2>
 * The whole state is one immutable {@code Phase} (state, times, probe, window) replaced by CAS, so
 * every transition is made by exactly one thread and every decision reads one consistent phase.
 * <ul>
 *   <li>CLOSED to OPEN: the thread that completes a call and finds the window over the threshold
 *       with at least {@code min-request-amount} calls. Every completion of a closed period is
 *       judged, success or failure, while a bad call (slow for slow-ratio, failed for the error
 *       strategies) completed within the last {@code stat-interval}: a success can be the call that
 *       reaches the minimum (F F F S S at 0.5 and minimum 5 opens on the last S), and successes
 *       leaving the window raise the ratio. Without such a bad call no strategy can trip, and a
 *       completion sums nothing: its only extra cost is one volatile read.
 *   <li>OPEN to HALF_OPEN: the first call at or after the retry time, by CAS; that call is the
 *       probe, every other call is refused while it runs (a call that loses the CAS is refused, it
 *       does not retry).
 *   <li>HALF_OPEN to CLOSED or OPEN: the probe's completion (a slow probe reopens a slow-ratio
 *       breaker, a failed probe an error breaker). A probe refused by a later rule or breaker never
 *       completes; {@link #probeRefused} reopens the breaker for a whole {@code open-duration}.
 *   <li>Probe timeout: a probe that has not completed within the <em>probe timeout</em> (a lost
 *       entry, a killed thread) counts as failed, and the first call after the timeout is the next
 *       probe. Listeners hear it as HALF_OPEN to OPEN and OPEN to HALF_OPEN, made in one step by the
 *       thread whose call becomes the new probe. The timeout is {@code open-duration}, and for
 *       slow-ratio {@code max(open-duration, slow-call-threshold)}: a lost probe then keeps callers
 *       out for one more open period, as a failed one does; a slow-ratio probe is never given up while it
 *       could still finish fast enough to close the breaker. (Error strategies have no such bound,
 *       and {@code open-duration} is the time the operator chose to leave the resource alone.)
 * </ul>
 * Closing starts a fresh window, so failures from before the open period cannot trip it again.
 *
 * <h2>Probes and periods are stamped</h2>
 * A probe is named by its start reading, which {@link DegradeSlot} hands back at completion. A
 * probe is only admitted with a reading greater than every earlier probe's, so stamps are unique;
 * the completion of a probe that timed out (or was refused) no longer matches the phase and decides
 * nothing. Likewise a closed period remembers when it began ({@code since}): a call that started
 * before it belongs to an earlier period and is not counted, whatever its outcome. (A call whose
 * start reading is older than the close but which was admitted after it, its thread descheduled
 * across the close, counts in neither period.)
 *
 * <h2>Late readings</h2>
 * The engine reads its ticker when a call starts or ends; a thread descheduled after reading arrives
 * here with a reading older than ones other threads already applied. That reading is late, not a
 * clock going back (the engine's clock does not go back beyond tiny amounts), and it is decided as
 * if it were the newest: every decision uses {@code max(reading, horizon)}, the horizon being the
 * newest reading applied to this breaker, kept to within {@value #HORIZON_STEP_NANOS} ns (it is
 * written at most once per step, not once per call). A late reading therefore never shortens an open
 * period or a probe timeout, never judges a window that has already slid on, never resets anything,
 * and never moves the state back. The step is below the shortest {@code open-duration} (1 ms): a
 * call admitted in a closed period raised the horizon to within a step of its start reading, so the
 * reopening, the probe and the close that follow all happen at least an {@code open-duration} minus
 * a step later, and the call's start reading is below the next period's {@code since}.
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

  /** One state of the breaker with everything that state needs; never changed, only replaced. */
  private static final class Phase {
    final CircuitState state;
    /**
     * OPEN: the effective reading from which a probe may pass. HALF_OPEN: the probe's deadline.
     * CLOSED: the effective reading at which the period began (calls started earlier are not
     * counted).
     */
    final long at;
    /** Start reading of the newest probe ever admitted (in HALF_OPEN, the one in flight). */
    final long probe;
    /** CLOSED only: the period's window. */
    final @Nullable LeapArray<Bucket> window;

    Phase(CircuitState state, long at, long probe, @Nullable LeapArray<Bucket> window) {
      this.state = state;
      this.at = at;
      this.probe = probe;
      this.window = window;
    }
  }

  /** Verdict of {@link #tryPass}: admitted. */
  static final long PASS = 0;
  /** Verdict of {@link #tryPass}: admitted as this breaker's probe. */
  static final long PROBE = 1;

  /** Granularity of the horizon: one write at most per 100 µs of clock; below the 1 ms minimum open-duration. */
  static final long HORIZON_STEP_NANOS = 100_000L;

  private static final int BUCKETS = 10;
  private static final long NONE = Long.MIN_VALUE;

  final DegradeRule rule;
  private final CircuitBreakerListener listener;
  private final long slowNanos;
  private final long openNanos;
  private final long intervalNanos;
  private final long probeTimeoutNanos;
  private final AtomicReference<Phase> phase;
  /** Newest reading applied, within {@link #HORIZON_STEP_NANOS}; only grows. */
  private final AtomicLong horizon = new AtomicLong(NONE);
  /** Effective reading of the newest bad call (slow or failed, per strategy); only grows. */
  private final AtomicLong lastBad = new AtomicLong(NONE);

  CircuitBreaker(DegradeRule rule, CircuitBreakerListener listener) {
    this.rule = rule;
    this.listener = listener;
    this.slowNanos = rule.slowCallThreshold().toNanos();
    this.openNanos = rule.openDuration().toNanos();
    this.intervalNanos = rule.statInterval().toNanos();
    this.probeTimeoutNanos = probeTimeout(rule).toNanos();
    this.phase = new AtomicReference<>(new Phase(CircuitState.CLOSED, NONE, NONE, newWindow()));
  }

  /** How long a probe may run before it counts as failed and the next call probes; see the class comment. */
  static java.time.Duration probeTimeout(DegradeRule rule) {
    if (rule.strategy() == DegradeStrategy.SLOW_RATIO && rule.slowCallThreshold().compareTo(rule.openDuration()) > 0) {
      return rule.slowCallThreshold();
    }
    return rule.openDuration();
  }

  private LeapArray<Bucket> newWindow() {
    return new LeapArray<>(BUCKETS, intervalNanos, Bucket::new);
  }

  CircuitState state() {
    return phase.get().state;
  }

  /**
   * Decides for one call that started at {@code reading}: {@link #PASS}, {@link #PROBE} (then the
   * call's completion or refusal must be reported with that same reading as its stamp), or a
   * negative value: a refusal encoded as in {@link FlowLimiter}. A call that loses a race for the
   * probe is refused; nothing here retries.
   */
  long tryPass(long reading) {
    long now = effective(reading);
    Phase current = phase.get();
    switch (current.state) {
      case CLOSED -> {
        return PASS;
      }
      case OPEN -> {
        if (now < current.at) {
          return FlowLimiter.refused(current.at - now);
        }
        if (reading > current.probe && phase.compareAndSet(current, probing(reading, now))) {
          listener.onStateChange(rule, CircuitState.OPEN, CircuitState.HALF_OPEN, "open duration passed; probing");
          return PROBE;
        }
        return FlowLimiter.refused(0);
      }
      default -> {
        // HALF_OPEN: a probe is in flight, unless it has outlived the probe timeout.
        if (now >= current.at && reading > current.probe && phase.compareAndSet(current, probing(reading, now))) {
          listener.onStateChange(rule, CircuitState.HALF_OPEN, CircuitState.OPEN,
              "probe did not complete within " + probeTimeoutNanos / 1_000_000 + " ms; counted as failed");
          listener.onStateChange(rule, CircuitState.OPEN, CircuitState.HALF_OPEN, "probe timed out; probing again");
          return PROBE;
        }
        return FlowLimiter.refused(0);
      }
    }
  }

  private Phase probing(long stamp, long now) {
    return new Phase(CircuitState.HALF_OPEN, now + probeTimeoutNanos, stamp, null);
  }

  /**
   * The probe stamped {@code stamp} was refused by a later rule: back to open for a whole period.
   * Does nothing when that probe is no longer the one in flight.
   */
  void probeRefused(long stamp, long reading) {
    long now = effective(reading);
    Phase current = phase.get();
    if (current.state == CircuitState.HALF_OPEN && current.probe == stamp
        && phase.compareAndSet(current, new Phase(CircuitState.OPEN, now + openNanos, stamp, null))) {
      listener.onStateChange(rule, CircuitState.HALF_OPEN, CircuitState.OPEN, "probe refused by another rule");
    }
  }

  /**
   * Records a completed call that started at {@code start} and ended at {@code end} (readings);
   * {@code probe} when this call was admitted as the breaker's probe.
   */
  void onComplete(long start, long end, boolean failed, boolean probe) {
    long now = effective(end);
    boolean slow = Math.max(0L, end - start) > slowNanos;
    boolean bad = rule.strategy() == DegradeStrategy.SLOW_RATIO ? slow : failed;
    Phase current = phase.get();
    if (probe) {
      if (current.state != CircuitState.HALF_OPEN || current.probe != start) {
        return; // a probe that timed out: a newer probe (or its outcome) decides now
      }
      if (bad) {
        if (phase.compareAndSet(current, new Phase(CircuitState.OPEN, now + openNanos, start, null))) {
          listener.onStateChange(rule, CircuitState.HALF_OPEN, CircuitState.OPEN, failed ? "probe failed" : "probe was slow");
        }
      } else if (phase.compareAndSet(current, new Phase(CircuitState.CLOSED, now, start, newWindow()))) {
        listener.onStateChange(rule, CircuitState.HALF_OPEN, CircuitState.CLOSED, "probe succeeded");
      }
      return;
    }
    LeapArray<Bucket> window = current.window;
    if (window == null || start < current.at) {
      return; // not closed, or a call of an earlier closed period
    }
    Bucket bucket = window.current(now);
    bucket.total.increment();
    if (slow) {
      bucket.slow.increment();
    }
    if (failed) {
      bucket.errors.increment();
    }
    /*
     * Judge the window only when a bad call is in it: no strategy can trip without one (thresholds
     * are >= 0). Race between a bad call B and a good call G completing together: each first adds
     * to its bucket (volatile writes), then B raises lastBad and G reads it (volatile). Either G
     * reads B's value, and then G's sums see B's count, or G read before B's write, and then B's
     * sums, made after its write, see G's count. So whichever call completes the verdict judges a
     * window holding both.
     */
    if (bad) {
      raise(lastBad, now);
    }
    long newestBad = lastBad.get();
    if (newestBad == NONE || now - newestBad >= intervalNanos) {
      return;
    }
    long total = window.sum(now, b -> b.total.sum());
    if (total < rule.minRequestAmount()) {
      return;
    }
    String reason = tripReason(window, now, total);
    if (reason != null && phase.compareAndSet(current, new Phase(CircuitState.OPEN, now + openNanos, current.probe, null))) {
      listener.onStateChange(rule, CircuitState.CLOSED, CircuitState.OPEN, reason);
    }
  }

  private @Nullable String tripReason(LeapArray<Bucket> window, long now, long total) {
    double threshold = rule.threshold();
    switch (rule.strategy()) {
      case SLOW_RATIO -> {
        double ratio = (double) window.sum(now, b -> b.slow.sum()) / total;
        boolean trips = ratio > threshold || (ratio == 1.0 && threshold == 1.0);
        return trips ? "slow-call ratio " + ratio + " over " + threshold + " (" + total + " calls)" : null;
      }
      case ERROR_RATIO -> {
        double ratio = (double) window.sum(now, b -> b.errors.sum()) / total;
        return ratio > threshold ? "error ratio " + ratio + " over " + threshold + " (" + total + " calls)" : null;
      }
      case ERROR_COUNT -> {
        long errors = window.sum(now, b -> b.errors.sum());
        return errors > threshold ? errors + " errors over " + threshold + " (" + total + " calls)" : null;
      }
      default -> throw new IllegalStateException(rule.strategy().toString());
    }
  }

  /** Nanoseconds until the next probe may pass; 0 when closed or probing. */
  long retryAfter(long reading) {
    Phase current = phase.get();
    return current.state == CircuitState.OPEN ? Math.max(0, current.at - effective(reading)) : 0;
  }

  /**
   * Applies a reading and returns the time to decide it at: the reading, or the horizon when the
   * reading is late. The loop ends: each failed CAS means another thread raised the horizon, which
   * only grows, and it stops as soon as the horizon is within a step of the reading.
   */
  private long effective(long reading) {
    long seen = horizon.get();
    while (reading - HORIZON_STEP_NANOS >= seen) {
      if (horizon.compareAndSet(seen, reading)) {
        return reading;
      }
      seen = horizon.get();
    }
    return Math.max(reading, seen);
  }

  /** Raises {@code value} to {@code to} unless it is already there; ends as {@link #effective} does. */
  private static void raise(AtomicLong value, long to) {
    long seen = value.get();
    while (to > seen && !value.compareAndSet(seen, to)) {
      seen = value.get();
    }
  }
}
