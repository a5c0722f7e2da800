package dev.weir.internal.limit;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link Circuit}'s probe CAS: a circuit tripped at {@code T - 2 s} for 1 s (so open until
 * {@code T - 1 s}), two actors ask to pass once its open period is over. Exactly one may be the
 * probe; the other is refused while it runs. r1, r2: 1 if that actor was admitted as the probe, 0
 * if refused, 2 for anything else (a plain pass: forbidden); r3: the circuit's state afterwards,
 * probed by the arbiter (2 = HALF_OPEN, the probe in flight).
 */
public final class CircuitProbeStress {

  static final long T = StressClocks.T;
  static final long SECOND = StressClocks.SECOND;
  static final long MS = StressClocks.MS;

  static Circuit<Object> tripped() {
    Circuit<Object> circuit = new Circuit<>(SECOND, SECOND, Object::new, (from, to, reason) -> { });
    Circuit.Phase<Object> period = circuit.closedPeriod(T - 2 * SECOND);
    if (period == null || !circuit.trip(period, T - 2 * SECOND, "stress")) {
      throw new IllegalStateException("a new circuit did not trip");
    }
    return circuit;
  }

  static int verdict(long result) {
    return result == Circuit.PROBE ? 1 : result < 0 ? 0 : 2;
  }

  /** Both actors at the same reading. */
  @JCStressTest
  @Description("Circuit open period over; two actors at the same reading race for the probe")
  @Outcome(id = {"1, 0, 2", "0, 1, 2"}, expect = ACCEPTABLE, desc = "exactly one probe; the circuit half-open")
  @Outcome(expect = FORBIDDEN, desc = "two probes, no probe, a pass, or the circuit not half-open")
  @State
  public static class SameReading {
    final Circuit<Object> circuit = tripped();

    @Actor
    public void a1(III_Result r) {
      r.r1 = verdict(circuit.tryPass(T));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = verdict(circuit.tryPass(T));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r3 = circuit.state().ordinal();
    }
  }

  /**
   * Actor 2's reading is late (5 ms older than actor 1's, both past the open period): if actor 1
   * probes first, actor 2 is decided at the horizon and refused; if actor 2 probes first, actor 1
   * finds the probe in flight. Never two probes.
   */
  @JCStressTest
  @Description("Circuit open period over; a present and a late reading race for the probe")
  @Outcome(id = {"1, 0, 2", "0, 1, 2"}, expect = ACCEPTABLE, desc = "exactly one probe; the circuit half-open")
  @Outcome(expect = FORBIDDEN, desc = "two probes, no probe, a pass, or the circuit not half-open")
  @State
  public static class LateReading {
    final Circuit<Object> circuit = tripped();

    @Actor
    public void a1(III_Result r) {
      r.r1 = verdict(circuit.tryPass(T));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = verdict(circuit.tryPass(T - 5 * MS));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r3 = circuit.state().ordinal();
    }
  }
}
