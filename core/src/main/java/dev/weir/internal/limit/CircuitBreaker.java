package dev.weir.internal.limit;

import dev.weir.CircuitBreakerListener;
import dev.weir.CircuitState;
import dev.weir.internal.time.LeapArray;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The state of one {@link DegradeRule}: its {@link Circuit} (closed, open or half-open, with probe
 * stamps, probe timeout and late readings decided at the horizon; see there), and what the rule
 * judges over each closed period: a sliding window of ten buckets covering {@code stat-interval}
 * (Sentinel's breakers count in one tumbling bucket, which forgets everything at each boundary; a
 * sliding window does not). The window rides in the circuit's CLOSED phase, so closing starts a
 * fresh window, and failures from before the open period cannot trip it again.
 *
 * <h2>What the rule decides</h2>
 * <ul>
 *   <li>CLOSED to OPEN: the thread that completes a call and finds the window over the threshold
 *       with at least {@code min-request-amount} calls trips the circuit, by CAS from the closed
 *       period whose window it judged. Every completion of a closed period is judged, success or
 *       failure, while a bad call (slow for slow-ratio, failed for the error strategies) completed
 *       within the last {@code stat-interval}: a success can be the call that reaches the minimum
 *       (F F F S S at 0.5 and minimum 5 opens on the last S), and successes leaving the window raise
 *       the ratio. Without such a bad call no strategy can trip, and a completion sums nothing: its
 *       only extra cost is one volatile read.
 *   <li>HALF_OPEN to CLOSED or OPEN: the probe's completion (a slow probe reopens a slow-ratio
 *       breaker, a failed probe an error breaker). A probe refused by a later rule or breaker never
 *       completes; {@link #probeRefused} reopens the breaker for a whole {@code open-duration}. A
 *       probe cancelled by its caller has no outcome: {@link #onCancelled} hands it back.
 *   <li>Probe timeout ({@link #probeTimeout}): {@code open-duration}, and for slow-ratio
 *       {@code max(open-duration, slow-call-threshold)}: a lost probe then keeps callers out for one
 *       more open period, as a failed one does; a slow-ratio probe is never given up while it could
 *       still finish fast enough to close the breaker. (Error strategies have no such bound, and
 *       {@code open-duration} is the time the operator chose to leave the resource alone.)
 * </ul>
 * A probe is named by its start reading, which {@link DegradeSlot} hands back at completion or
 * refusal. Every transition goes to the {@link CircuitBreakerListener} given at construction (the
 * engine's, which logs it and tells the user's listeners).
 */
public final class CircuitBreaker {

  static final class Bucket extends LeapArray.Bucket {
    final LongAdder total = new LongAdder();
    final LongAdder slow = new LongAdder();
    final LongAdder errors = new LongAdder();

    Bucket(long index) {
      super(index);
    }
  }

  /** Verdict of {@link #tryPass}: admitted. */
  public static final long PASS = Circuit.PASS;
  /** Verdict of {@link #tryPass}: admitted as this breaker's probe. */
  public static final long PROBE = Circuit.PROBE;

  /** The reason of the transition that hands a cancelled probe back. */
  public static final String PROBE_CANCELLED = "probe cancelled by its caller before its outcome; the next call probes";

  private static final int BUCKETS = 10;
  private static final long NONE = Circuit.NONE;

  public final DegradeRule rule;
  /** Non-null when the rule is in shadow mode: an open breaker then counts the calls it lets through. */
  public final @Nullable ShadowRefusals shadow;
  private final long slowNanos;
  private final long intervalNanos;
  /** The window of each closed period: a {@code LeapArray<Bucket>}, or a {@link CallRing} when count-based. */
  private final Circuit<Object> circuit;
  private final int windowCalls;
  /** Effective reading of the newest bad call (slow or failed, per strategy); only grows. */
  private final AtomicLong lastBad;
  /**
   * The rule transitions are reported with: this breaker's, or that of the newest twin sharing its
   * circuit, so that listeners hear the rule in force.
   */
  private final AtomicReference<DegradeRule> reported;

  public CircuitBreaker(DegradeRule rule, CircuitBreakerListener listener) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.slowNanos = rule.slowCallThreshold().toNanos();
    this.intervalNanos = rule.statInterval().toNanos();
    this.windowCalls = rule.windowCalls();
    this.lastBad = new AtomicLong(NONE);
    AtomicReference<DegradeRule> inForce = new AtomicReference<>(rule);
    this.reported = inForce;
    this.circuit = new Circuit<>(rule.openDuration().toNanos(), probeTimeout(rule).toNanos(), this::newWindow,
        (from, to, reason) -> listener.onStateChange(inForce.get(), from, to, reason));
  }

  /**
   * The breaker of {@code rule}, which differs from {@code twin}'s rule in {@code shadow} only: the
   * same circuit and window, so switching shadow mode on or off keeps the circuit's state.
   */
  public CircuitBreaker(DegradeRule rule, CircuitBreaker twin) {
    this.rule = rule;
    this.shadow = ShadowRefusals.of(rule);
    this.slowNanos = twin.slowNanos;
    this.intervalNanos = twin.intervalNanos;
    this.windowCalls = twin.windowCalls;
    this.lastBad = twin.lastBad;
    this.reported = twin.reported;
    this.circuit = twin.circuit;
    reported.set(rule);
  }

  /** How long a probe may run before it counts as failed and the next call probes; see the class comment. */
  public static java.time.Duration probeTimeout(DegradeRule rule) {
    if (rule.strategy() == DegradeStrategy.SLOW_RATIO && rule.slowCallThreshold().compareTo(rule.openDuration()) > 0) {
      return rule.slowCallThreshold();
    }
    return rule.openDuration();
  }

  private Object newWindow() {
    return windowCalls > 0 ? new CallRing(windowCalls) : new LeapArray<>(BUCKETS, intervalNanos, Bucket::new);
  }

  public CircuitState state() {
    return circuit.state();
  }

  /**
   * Decides for one call that started at {@code reading}: {@link #PASS}, {@link #PROBE} (then the
   * call's completion or refusal must be reported with that same reading as its stamp), or a
   * negative value: a refusal encoded as in {@link FlowLimiter}. A call that loses a race for the
   * probe is refused; nothing here retries.
   */
  public long tryPass(long reading) {
    return circuit.tryPass(reading);
  }

  /**
   * The probe stamped {@code stamp} was refused by a later rule: back to open for a whole period.
   * Does nothing when that probe is no longer the one in flight.
   */
  public void probeRefused(long stamp, long reading) {
    circuit.probeFailed(stamp, reading, "probe refused by another rule");
  }

  /**
   * Records a call that started at {@code start} and was {@linkplain Entry#cancel() cancelled} by its
   * caller at {@code end}, before its outcome was known. All a cancel proves is that the call ran
   * {@code end - start} at least. For slow-ratio, a call that ran past the slow-call threshold was
   * slow whatever came after: it counts as a slow call, and as a probe it reopens the breaker. Any
   * other cancelled call counts in no window (a success it was not shown to be would dilute the
   * ratio, a failure it was not shown to be would trip on callers' impatience), and a probe is
   * handed back: the circuit is open again with its period over, so the next call probes. At most
   * one probe is still in flight: the hand-back is a CAS from the phase naming this probe, and the
   * next probe is admitted by the usual CAS from the open phase it leaves.
   */
  public void onCancelled(long start, long end, boolean probe) {
    if (rule.strategy() == DegradeStrategy.SLOW_RATIO && Math.max(0L, end - start) > slowNanos) {
      onComplete(start, end, false, probe);
      return;
    }
    if (probe) {
      circuit.probeHandedBack(start, PROBE_CANCELLED);
    }
  }

  /**
   * Records a completed call that started at {@code start} and ended at {@code end} (readings);
   * {@code probe} when this call was admitted as the breaker's probe.
   */
  public void onComplete(long start, long end, boolean failed, boolean probe) {
    long now = circuit.effective(end);
    boolean slow = Math.max(0L, end - start) > slowNanos;
    boolean bad = rule.strategy() == DegradeStrategy.SLOW_RATIO ? slow : failed;
    if (probe) {
      // A probe that timed out decides nothing: a newer probe (or its outcome) decides now.
      if (bad) {
        circuit.probeFailed(start, now, failed ? "probe failed" : "probe was slow");
      } else {
        circuit.probeSucceeded(start, now, "probe succeeded");
      }
      return;
    }
    Circuit.Phase<Object> period = circuit.closedPeriod(start);
    if (period == null) {
      return; // not closed, or a call of an earlier closed period
    }
    if (period.window() instanceof CallRing ring) {
      /*
       * Count-based: judge while a bad call is among the last N. The ring's counts are read after
       * this call's own correction, so of two calls completing together the later reader judges a
       * ring holding both (see CallRing).
       */
      ring.add(slow, failed);
      long badCalls = rule.strategy() == DegradeStrategy.SLOW_RATIO ? ring.slow() : ring.errors();
      long total = ring.total();
      if (badCalls == 0 || total < rule.minRequestAmount()) {
        return;
      }
      String reason = tripReason(total, ring.slow(), ring.errors(), " of the last " + windowCalls + " calls");
      if (reason != null) {
        circuit.trip(period, now, reason);
      }
      return;
    }
    @SuppressWarnings("unchecked")
    LeapArray<Bucket> window = (LeapArray<Bucket>) period.window();
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
    boolean slowMeasure = rule.strategy() == DegradeStrategy.SLOW_RATIO;
    long slowCalls = slowMeasure ? window.sum(now, b -> b.slow.sum()) : 0;
    long errorCalls = slowMeasure ? 0 : window.sum(now, b -> b.errors.sum());
    String reason = tripReason(total, slowCalls, errorCalls, " calls");
    if (reason != null) {
      circuit.trip(period, now, reason); // fails, tripping nothing, if the judged period has ended
    }
  }

  private @Nullable String tripReason(long total, long slowCalls, long errorCalls, String of) {
    double threshold = rule.threshold();
    switch (rule.strategy()) {
      case SLOW_RATIO -> {
        double ratio = (double) slowCalls / total;
        boolean trips = ratio > threshold || (ratio == 1.0 && threshold == 1.0);
        return trips ? "slow-call ratio " + ratio + " over " + threshold + " (" + total + of + ")" : null;
      }
      case ERROR_RATIO -> {
        double ratio = (double) errorCalls / total;
        return ratio > threshold ? "error ratio " + ratio + " over " + threshold + " (" + total + of + ")" : null;
      }
      case ERROR_COUNT -> {
        return errorCalls > threshold ? errorCalls + " errors over " + threshold + " (" + total + of + ")" : null;
      }
      default -> throw new IllegalStateException(rule.strategy().toString());
    }
  }

  /** Nanoseconds until the next probe may pass; 0 when closed or probing. */
  public long retryAfter(long reading) {
    return circuit.retryAfter(reading);
  }

  /** Raises {@code value} to {@code to} unless it is already there; each failed CAS means another thread raised it. */
  private static void raise(AtomicLong value, long to) {
    long seen = value.get();
    while (to > seen && !value.compareAndSet(seen, to)) {
      seen = value.get();
    }
  }
}
