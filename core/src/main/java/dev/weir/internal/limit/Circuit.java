package dev.weir.internal.limit;

import dev.weir.CircuitState;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The state machine of a circuit breaker: closed, open until a time, or half-open with one probe in
 * flight. Lock-free: the whole state is one immutable {@link Phase} replaced by CAS, so every
 * transition is made by exactly one thread and every decision reads one consistent phase. Its two
 * users are {@link CircuitBreaker} (a {@code DegradeRule}, judging a sliding window) and
 * {@link ClusterGuard} (the breaker in front of the cluster store, counting failures in a row); what
 * they judge stays with them, the transitions are made here.
 *
 * <h2>Transitions, and who makes them</h2>
 * <ul>
 *   <li>CLOSED to OPEN, {@link #trip}: the user judged the phase it got from {@link #closedPeriod}
 *       and found it over its threshold; the CAS is from that very phase, so a judgement of a closed
 *       period that has since ended (tripped by another thread, or tripped, probed and closed again)
 *       trips nothing. Each closed period is tripped at most once.
 *   <li>OPEN to HALF_OPEN, {@link #tryPass}: the first call at or after the open period's end, by
 *       CAS; that call is the probe, every other call is refused while it runs (a call that loses
 *       the CAS is refused, it does not retry).
 *   <li>HALF_OPEN to CLOSED ({@link #probeSucceeded}) or to OPEN ({@link #probeFailed}, also the
 *       way back for a probe refused by a later rule): the probe's outcome, by CAS from the phase
 *       naming that probe. {@link #probeHandedBack}: the probe's outcome will never be known and
 *       says nothing about the resource (its caller was interrupted before the answer, or cancelled
 *       the call), so the circuit is open again with its period already over and the next call
 *       probes.
 *   <li>Probe timeout: a probe that has not completed within the probe timeout (a lost entry, a
 *       killed thread) counts as failed, and the first call after the timeout is the next probe.
 *       Listeners hear it as HALF_OPEN to OPEN and OPEN to HALF_OPEN, made in one step (one CAS)
 *       by the thread whose call becomes the new probe.
 * </ul>
 * Every transition is told to the {@link Listener} by the thread whose CAS made it, after the CAS.
 *
 * <h2>Probes and periods are stamped</h2>
 * A probe is named by its start reading (its <em>stamp</em>), which the user hands back with its
 * outcome. A probe is only admitted with a reading greater than the stamp of every earlier probe,
 * so stamps are unique; the outcome of a probe that timed out no longer matches the phase and
 * decides nothing (the only exception, {@link #probeHandedBack}, forgets the stamp of a probe that
 * its caller promises never to report). Likewise a closed period remembers when it began
 * ({@code since}): {@link #closedPeriod} does not give it to a call that started before, so such a
 * call is counted in no period, whatever its outcome. (A call whose start reading is older than the
 * close but which was admitted after it, its thread descheduled across the close, counts in neither
 * period.)
 *
 * <h2>Late readings</h2>
 * A thread descheduled after reading the clock arrives here with a reading older than ones other
 * threads already applied. That reading is late, not a clock going back (the engine's clock does not
 * go back beyond tiny amounts), and it is decided as if it were the newest: every decision uses
 * {@code max(reading, horizon)}, the horizon being the newest reading applied to this circuit, kept
 * to within {@value #HORIZON_STEP_NANOS} ns (it is written at most once per step, not once per
 * call). A late reading therefore never shortens an open period or a probe timeout, never resets
 * anything, and never moves the state back. When the open duration is above the step (always for a
 * degrade rule, whose shortest {@code open-duration} is 1 ms), a call admitted in a closed period
 * raised the horizon to within a step of its start reading, so the reopening, the probe and the
 * close that follow all happen at least an open duration minus a step later, and the call's start
 * reading is below the next period's {@code since}.
 *
 * <h2>The window of a closed period rides in the phase</h2>
 * What a user counts over a closed period (a sliding window of buckets, a count of failures in a
 * row) is created by a supplier at each close and carried by the CLOSED phase, not kept beside it.
 * Beside it, a close would be two writes (the phase, then a fresh window) and a thread between them
 * could count a call of the new period into the old window, or judge the old window's failures and
 * trip the new period. In the phase, "the window I judged" and "the period I trip" are one object:
 * a user reads the phase once, counts into its window, judges it, and trips by CAS from that same
 * phase, which fails if the period has ended. The price is one allocation per close (not per call).
 *
 * @param <W> what a user counts over one closed period; never null in a CLOSED phase
 */
public final class Circuit<W> {

  /** Told of every transition, by the thread whose CAS made it; must be quick and must not throw. */
  @FunctionalInterface
  public interface Listener {
    void onTransition(CircuitState from, CircuitState to, String reason);
  }

  /** One state of the circuit with everything that state needs; never changed, only replaced. */
  public static final class Phase<W> {
    final CircuitState state;
    /**
     * OPEN: the effective reading from which a probe may pass. HALF_OPEN: the probe's deadline.
     * CLOSED: the effective reading at which the period began (calls started earlier are not
     * counted).
     */
    final long at;
    /** Start reading of the newest probe admitted (in HALF_OPEN, the one in flight). */
    final long probe;
    /** CLOSED only: what the user counts over this period. */
    private final @Nullable W window;

    Phase(CircuitState state, long at, long probe, @Nullable W window) {
      this.state = state;
      this.at = at;
      this.probe = probe;
      this.window = window;
    }

    /** The window of this closed period (non-null: only CLOSED phases are handed out to users). */
    public W window() {
      return java.util.Objects.requireNonNull(window, "not a closed period");
    }
  }

  /** Verdict of {@link #tryPass}: admitted. */
  static final long PASS = 0;
  /** Verdict of {@link #tryPass}: admitted as the probe, stamped with the reading it was decided at. */
  public static final long PROBE = 1;

  /**
   * Granularity of the horizon: one write at most per 100 µs of clock; below the 1 ms minimum
   * open duration of a degrade rule.
   */
  static final long HORIZON_STEP_NANOS = 100_000L;

  /**
   * The reason of the OPEN to HALF_OPEN transition of the call that probes after a
   * {@linkplain #probeHandedBack hand-back}.
   */
  public static final String PROBING_AFTER_HAND_BACK = "probe handed back; probing again";

  /** No reading: before every reading (the first closed period's {@code since}, no probe yet). */
  static final long NONE = Long.MIN_VALUE;

  private final long openNanos;
  private final long probeTimeoutNanos;
  private final Supplier<W> newWindow;
  private final Listener listener;
  private final AtomicReference<Phase<W>> phase;
  /** Newest reading applied, within {@link #HORIZON_STEP_NANOS}; only grows. */
  private final AtomicLong horizon = new AtomicLong(NONE);

  /**
   * A closed circuit. {@code openNanos}: how long it stays open after a trip or a failed probe;
   * {@code probeTimeoutNanos}: how long a probe may run before it counts as failed; both positive
   * and far below the overflow of a reading ({@link FlowLimiter#MAX_NANOS}).
   */
  public Circuit(long openNanos, long probeTimeoutNanos, Supplier<W> newWindow, Listener listener) {
    if (openNanos <= 0 || probeTimeoutNanos <= 0) {
      throw new IllegalArgumentException("open " + openNanos + " ns, probe timeout " + probeTimeoutNanos + " ns");
    }
    this.openNanos = openNanos;
    this.probeTimeoutNanos = probeTimeoutNanos;
    this.newWindow = newWindow;
    this.listener = listener;
    this.phase = new AtomicReference<>(new Phase<>(CircuitState.CLOSED, NONE, NONE, newWindow.get()));
  }

  public CircuitState state() {
    return phase.get().state;
  }

  /**
   * Decides for one call that started at {@code reading}: {@link #PASS}, {@link #PROBE} (then the
   * probe's outcome must be reported with that same reading as its stamp), or a negative value: a
   * refusal encoded as in {@link FlowLimiter}, with the time until the open period ends (0 while a
   * probe runs, or for a call that lost the race for the probe). Nothing here retries: one read of
   * the phase, at most one CAS.
   */
  public long tryPass(long reading) {
    long now = effective(reading);
    Phase<W> current = phase.get();
    switch (current.state) {
      case CLOSED:
        return PASS;
      case OPEN:
        if (now < current.at) {
          return FlowLimiter.refused(current.at - now);
        }
        /*
         * The CAS from the phase read above: of every call that found this open period over, only
         * one replaces it. reading > probe keeps stamps unique: a call whose reading is not newer
         * than the last probe's (a late reading, or the same reading) could otherwise be admitted
         * under the same stamp, and the older probe's outcome would then decide for it.
         */
        if (reading > current.probe && phase.compareAndSet(current, probing(reading, now))) {
          listener.onTransition(CircuitState.OPEN, CircuitState.HALF_OPEN,
              current.at == NONE ? PROBING_AFTER_HAND_BACK : "open duration passed; probing");
          return PROBE;
        }
        return FlowLimiter.refused(0);
      default:
        // HALF_OPEN: a probe is in flight, unless it has outlived the probe timeout. The same CAS
        // as above: of the calls that find the deadline passed, one becomes the new probe.
        if (now >= current.at && reading > current.probe && phase.compareAndSet(current, probing(reading, now))) {
          listener.onTransition(CircuitState.HALF_OPEN, CircuitState.OPEN,
              "probe did not complete within " + probeTimeoutNanos / 1_000_000 + " ms; counted as failed");
          listener.onTransition(CircuitState.OPEN, CircuitState.HALF_OPEN, "probe timed out; probing again");
          return PROBE;
        }
        return FlowLimiter.refused(0);
    }
  }

  private Phase<W> probing(long stamp, long now) {
    return new Phase<>(CircuitState.HALF_OPEN, now + probeTimeoutNanos, stamp, null);
  }

  /**
   * The current closed period if a call that started at {@code start} belongs to it, else null (the
   * circuit is not closed, or the call started before the period began). The user counts into its
   * {@link Phase#window()} and, if it judges the period over its threshold, passes the same phase
   * to {@link #trip}.
   */
  public @Nullable Phase<W> closedPeriod(long start) {
    Phase<W> current = phase.get();
    return current.state == CircuitState.CLOSED && start >= current.at ? current : null;
  }

  /**
   * Opens the circuit for the open duration from {@code reading}, if {@code judged} (a phase from
   * {@link #closedPeriod}) is still the current phase. Returns whether this call opened it.
   */
  public boolean trip(Phase<W> judged, long reading, String reason) {
    if (judged.state != CircuitState.CLOSED) {
      throw new IllegalArgumentException("only a closed period trips: " + judged.state);
    }
    long now = effective(reading);
    if (phase.compareAndSet(judged, new Phase<>(CircuitState.OPEN, now + openNanos, judged.probe, null))) {
      listener.onTransition(CircuitState.CLOSED, CircuitState.OPEN, reason);
      return true;
    }
    return false;
  }

  /**
   * The probe stamped {@code stamp} succeeded: the circuit closes, and a fresh window starts at
   * {@code reading}. Returns false, deciding nothing, when that probe is no longer the one in flight
   * (it timed out, or was decided already).
   */
  public boolean probeSucceeded(long stamp, long reading, String reason) {
    long now = effective(reading);
    Phase<W> current = phase.get();
    return inFlight(current, stamp)
        && decided(current, new Phase<>(CircuitState.CLOSED, now, stamp, newWindow.get()), reason);
  }

  /**
   * The probe stamped {@code stamp} failed, or was refused by a later rule: the circuit opens again
   * for a whole open duration from {@code reading}. Returns false, deciding nothing, when that probe
   * is no longer the one in flight.
   */
  public boolean probeFailed(long stamp, long reading, String reason) {
    long now = effective(reading);
    Phase<W> current = phase.get();
    return inFlight(current, stamp)
        && decided(current, new Phase<>(CircuitState.OPEN, now + openNanos, stamp, null), reason);
  }

  /**
   * The probe stamped {@code stamp} has no outcome (its caller was interrupted before the answer)
   * and its caller will never report it: the circuit is open again with its period already over, so the next call probes,
   * even one at the same reading (the probe's stamp is forgotten, which is safe only because its
   * caller reports nothing more). Returns false, deciding nothing, when that probe is no longer the
   * one in flight. Open {@code at} {@link #NONE}: every reading is at or after it.
   */
  public boolean probeHandedBack(long stamp, String reason) {
    Phase<W> current = phase.get();
    return inFlight(current, stamp)
        && decided(current, new Phase<>(CircuitState.OPEN, NONE, stamp - 1, null), reason);
  }

  private static boolean inFlight(Phase<?> current, long stamp) {
    return current.state == CircuitState.HALF_OPEN && current.probe == stamp;
  }

  /**
   * The CAS of a probe's outcome, from the phase naming it: it fails only if another thread replaced
   * that phase, i.e. the probe timed out and a newer probe was admitted (the outcome of this one is
   * then stale), or this probe's outcome was already reported.
   */
  private boolean decided(Phase<W> current, Phase<W> next, String reason) {
    if (phase.compareAndSet(current, next)) {
      listener.onTransition(CircuitState.HALF_OPEN, next.state, reason);
      return true;
    }
    return false;
  }

  /** Nanoseconds until the next probe may pass; 0 when closed or probing. */
  long retryAfter(long reading) {
    Phase<W> current = phase.get();
    long now = effective(reading);
    return current.state == CircuitState.OPEN && now < current.at ? current.at - now : 0;
  }

  /**
   * Applies a reading and returns the time to decide it at: the reading, or the horizon when the
   * reading is late. The loop ends: each failed CAS means another thread raised the horizon, which
   * only grows, and it stops as soon as the horizon is within a step of the reading.
   */
  long effective(long reading) {
    long seen = horizon.get();
    while (reading - HORIZON_STEP_NANOS >= seen) {
      if (horizon.compareAndSet(seen, reading)) {
        return reading;
      }
      seen = horizon.get();
    }
    return Math.max(reading, seen);
  }
}
