package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.CircuitState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Circuit} driven with explicit readings, one thread: the exact arithmetic of every
 * transition (open periods, retry-after, probe deadlines, the {@code since} of a closed period,
 * the horizon) and what each transition tells the listener.
 */
class CircuitTest {

  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;
  private static final long OPEN = 5 * S;
  private static final long TIMEOUT = 7 * S;

  /** Far from zero and negative: nothing may assume readings start at 0. */
  private final long t = -7_777_777_777_777L;
  private final List<String> heard = new ArrayList<>();
  private final Circuit<AtomicInteger> circuit =
      new Circuit<>(OPEN, TIMEOUT, AtomicInteger::new, (from, to, reason) -> heard.add(from + ">" + to + ": " + reason));

  private Circuit.Phase<AtomicInteger> closed(long start) {
    Circuit.Phase<AtomicInteger> period = circuit.closedPeriod(start);
    assertThat(period).as("closed period of a call started at " + start).isNotNull();
    return period;
  }

  /** Trips at {@code t} and admits the probe at {@code t + OPEN}; returns its stamp. */
  private long probing() {
    assertThat(circuit.trip(closed(t), t, "tripped")).isTrue();
    long stamp = t + OPEN;
    assertThat(circuit.tryPass(stamp)).isEqualTo(Circuit.PROBE);
    return stamp;
  }

  @Test
  void aNewCircuitIsClosedPassesEveryReadingAndCountsEveryCall() {
    assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(circuit.tryPass(t)).isEqualTo(Circuit.PASS);
    assertThat(circuit.tryPass(Long.MIN_VALUE + 1)).isEqualTo(Circuit.PASS);
    assertThat(closed(Long.MIN_VALUE).window()).isSameAs(closed(t).window()).hasValue(0);
    assertThat(circuit.retryAfter(t)).isZero();
    assertThat(heard).isEmpty();
  }

  @Test
  void aTripOpensForTheOpenDurationFromItsReadingAndRefusesWithTheTimeLeft() {
    assertThat(circuit.trip(closed(t), t, "tripped")).isTrue();
    assertThat(circuit.state()).isEqualTo(CircuitState.OPEN);
    assertThat(circuit.closedPeriod(t)).isNull();
    assertThat(circuit.tryPass(t)).isEqualTo(FlowLimiter.refused(OPEN));
    assertThat(circuit.tryPass(t + 2 * S)).isEqualTo(FlowLimiter.refused(3 * S));
    assertThat(circuit.retryAfter(t + 2 * S)).isEqualTo(3 * S);
    assertThat(circuit.tryPass(t + OPEN - 1)).isEqualTo(FlowLimiter.refused(1));
    assertThat(circuit.tryPass(t + OPEN)).isEqualTo(Circuit.PROBE);
    assertThat(circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(circuit.tryPass(t + OPEN)).as("the same reading: one probe").isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.tryPass(t + OPEN + 1)).isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.retryAfter(t + OPEN + 1)).isZero();
    assertThat(heard).containsExactly("CLOSED>OPEN: tripped", "OPEN>HALF_OPEN: open duration passed; probing");
  }

  @Test
  void aSucceededProbeClosesWithAFreshWindowStartingAtItsReading() {
    Circuit.Phase<AtomicInteger> first = closed(t);
    first.window().set(7);
    long stamp = probing();
    long end = stamp + 3 * MS;
    assertThat(circuit.probeSucceeded(stamp, end, "answered")).isTrue();
    assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(circuit.tryPass(end)).isEqualTo(Circuit.PASS);
    assertThat(circuit.closedPeriod(end - 1)).as("a call that started before the close").isNull();
    Circuit.Phase<AtomicInteger> second = closed(end);
    assertThat(second.window()).isNotSameAs(first.window()).hasValue(0);
    assertThat(circuit.trip(first, end, "stale")).as("a judgement of the ended period").isFalse();
    assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(circuit.probeSucceeded(stamp, end, "again")).as("an outcome reported twice").isFalse();
    assertThat(circuit.probeFailed(stamp, end, "again")).isFalse();
    assertThat(heard).endsWith("HALF_OPEN>CLOSED: answered").hasSize(3);

    assertThat(circuit.trip(second, end + MS, "tripped again")).isTrue();
    assertThat(circuit.tryPass(end + MS + OPEN - 1)).isEqualTo(FlowLimiter.refused(1));
    assertThat(circuit.tryPass(end + MS + OPEN)).isEqualTo(Circuit.PROBE);
  }

  @Test
  void aFailedProbeReopensForAWholeOpenDurationFromItsOutcome() {
    long stamp = probing();
    long end = stamp + 2 * MS;
    assertThat(circuit.probeFailed(stamp, end, "failed")).isTrue();
    assertThat(circuit.state()).isEqualTo(CircuitState.OPEN);
    assertThat(circuit.retryAfter(end)).isEqualTo(OPEN);
    assertThat(circuit.tryPass(end + OPEN - 1)).isEqualTo(FlowLimiter.refused(1));
    assertThat(circuit.probeFailed(stamp, end + OPEN, "twice")).isFalse();
    assertThat(circuit.tryPass(end + OPEN)).isEqualTo(Circuit.PROBE);
    assertThat(heard).containsExactly("CLOSED>OPEN: tripped", "OPEN>HALF_OPEN: open duration passed; probing",
        "HALF_OPEN>OPEN: failed", "OPEN>HALF_OPEN: open duration passed; probing");
  }

  @Test
  void aProbeOutlivingItsTimeoutCountsAsFailedAndItsLateOutcomeDecidesNothing() {
    long first = probing();
    assertThat(circuit.tryPass(first + TIMEOUT - 1)).isEqualTo(FlowLimiter.refused(0));
    long second = first + TIMEOUT;
    assertThat(circuit.tryPass(second)).isEqualTo(Circuit.PROBE);
    assertThat(heard).endsWith("HALF_OPEN>OPEN: probe did not complete within 7000 ms; counted as failed",
        "OPEN>HALF_OPEN: probe timed out; probing again");
    assertThat(circuit.tryPass(second)).isEqualTo(FlowLimiter.refused(0));

    int told = heard.size();
    assertThat(circuit.probeSucceeded(first, second + MS, "late")).isFalse();
    assertThat(circuit.probeFailed(first, second + MS, "late")).isFalse();
    assertThat(circuit.probeHandedBack(first, "late")).isFalse();
    assertThat(circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(heard).hasSize(told);
    // The new probe's deadline counts from its own admission.
    assertThat(circuit.tryPass(second + TIMEOUT - 1)).isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.probeSucceeded(second, second + 2 * MS, "answered")).isTrue();
    assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aProbeNeedsAReadingNewerThanEveryEarlierProbesStamp() {
    long first = probing();
    circuit.effective(first + TIMEOUT); // another thread applied a reading past the deadline
    assertThat(circuit.tryPass(first)).as("decided at the horizon, but the first probe's own stamp")
        .isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.tryPass(first - MS)).isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.tryPass(first + 1)).as("late, decided at the horizon, newer than the stamp")
        .isEqualTo(Circuit.PROBE);
    assertThat(circuit.probeFailed(first, first + TIMEOUT, "stale")).isFalse();
    assertThat(circuit.probeFailed(first + 1, first + TIMEOUT, "failed")).isTrue();
    assertThat(circuit.retryAfter(first + TIMEOUT)).isEqualTo(OPEN);
  }

  @Test
  void aHandedBackProbeLetsTheNextCallProbeAtOnceEvenAtTheSameReading() {
    long stamp = probing();
    assertThat(circuit.probeHandedBack(stamp, "unused")).isTrue();
    assertThat(circuit.state()).isEqualTo(CircuitState.OPEN);
    assertThat(circuit.retryAfter(stamp)).isZero();
    assertThat(circuit.tryPass(stamp - 1)).as("older than the handed-back probe").isEqualTo(FlowLimiter.refused(0));
    assertThat(circuit.tryPass(stamp)).isEqualTo(Circuit.PROBE);
    assertThat(circuit.probeHandedBack(stamp - 1, "not this one")).isFalse();
    assertThat(circuit.probeSucceeded(stamp, stamp + MS, "answered")).isTrue();
    assertThat(heard).containsExactly("CLOSED>OPEN: tripped", "OPEN>HALF_OPEN: open duration passed; probing",
        "HALF_OPEN>OPEN: unused", "OPEN>HALF_OPEN: " + Circuit.PROBING_AFTER_HAND_BACK, "HALF_OPEN>CLOSED: answered");
  }

  @Test
  void lateReadingsAreDecidedAtTheHorizonAndNeverShortenAPeriod() {
    Circuit.Phase<AtomicInteger> period = closed(t);
    assertThat(circuit.tryPass(t + 3 * S)).isEqualTo(Circuit.PASS); // the horizon: t + 3 s
    assertThat(circuit.trip(period, t, "late trip")).isTrue();
    // Open for the open duration from t + 3 s, not from t.
    assertThat(circuit.tryPass(t + OPEN)).isEqualTo(FlowLimiter.refused(3 * S));
    assertThat(circuit.tryPass(t + 2 * S)).as("late: decided at t + 5 s, the horizon")
        .isEqualTo(FlowLimiter.refused(3 * S));
    assertThat(circuit.tryPass(t + 3 * S + OPEN - 1)).isEqualTo(FlowLimiter.refused(1));
    long stamp = t + 3 * S + OPEN;
    assertThat(circuit.tryPass(stamp)).isEqualTo(Circuit.PROBE);
    circuit.effective(stamp + 4 * S);
    assertThat(circuit.probeFailed(stamp, stamp + MS, "late outcome")).isTrue();
    assertThat(circuit.retryAfter(stamp + 4 * S)).as("reopened from the horizon").isEqualTo(OPEN);

    long close = stamp + 4 * S + OPEN;
    assertThat(circuit.tryPass(close)).isEqualTo(Circuit.PROBE);
    circuit.effective(close + S);
    assertThat(circuit.probeSucceeded(close, close + MS, "late close")).isTrue();
    assertThat(circuit.closedPeriod(close + S - 1)).as("the period began at the horizon").isNull();
    assertThat(circuit.closedPeriod(close + S)).isNotNull();
  }

  @Test
  void theHorizonIsWrittenOncePerStepAndOnlyGrows() {
    long step = Circuit.HORIZON_STEP_NANOS;
    assertThat(circuit.effective(t)).isEqualTo(t);
    assertThat(circuit.effective(t + step - 1)).isEqualTo(t + step - 1); // within a step: not written
    assertThat(circuit.effective(t - 5 * S)).isEqualTo(t);
    assertThat(circuit.effective(t + step)).isEqualTo(t + step);
    assertThat(circuit.effective(t)).isEqualTo(t + step);
  }

  @Test
  void tripOnlyFromAClosedPhaseAndOnlyPositiveDurations() {
    long stamp = probing();
    Circuit.Phase<AtomicInteger> notClosed = new Circuit.Phase<>(CircuitState.HALF_OPEN, stamp, stamp, null);
    assertThatThrownBy(() -> circuit.trip(notClosed, stamp, "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(notClosed::window).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new Circuit<>(0, 1, Object::new, (f, to, r) -> { }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Circuit<>(1, 0, Object::new, (f, to, r) -> { }))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
