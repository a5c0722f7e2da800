package dev.weir.internal.limit;

import static dev.weir.internal.limit.StressClocks.MS;
import static dev.weir.internal.limit.StressClocks.SECOND;
import static dev.weir.internal.limit.StressClocks.T;
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
 * {@link WindowLimiter}, several threads at one reading: the check-and-count CAS on the newest
 * bucket admits exactly {@code count}, never one more, and the window counts what was admitted.
 *
 * <p>jcstress runs a test only with a CPU per actor; on the 2-core machine every test here has two
 * actors, and an actor that makes two calls in sequence stands for a third caller.
 */
public final class WindowSameReadingStress {

  private WindowSameReadingStress() {
  }

  /** 2 threads, count 1: the smallest race. r1, r2: admitted; r3: the window's count. */
  @JCStressTest
  @Description("WindowLimiter count 1, two actors at the same reading")
  @Outcome(id = {"1, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "exactly one admitted and counted")
  @Outcome(expect = FORBIDDEN, desc = "both or neither admitted, or the window disagrees")
  @State
  public static class TwoActorsCountOne {
    static final long NOW = T + 42 * MS;
    final WindowLimiter limiter = new WindowLimiter(SECOND, 1, StressClocks.fixedAt(NOW), NOW);

    @Actor
    public void a1(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, NOW));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, NOW));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r3 = (int) limiter.inWindow();
    }
  }

  /**
   * Count 3, each actor makes two calls: exactly 3 of the 4 pass. r1, r2: admissions of each actor
   * (0..2); r3: the window's count.
   */
  @JCStressTest
  @Description("WindowLimiter count 3, two actors making two calls each at the same reading")
  @Outcome(id = {"2, 1, 3", "1, 2, 3"}, expect = ACCEPTABLE, desc = "exactly count admitted and counted")
  @Outcome(expect = FORBIDDEN, desc = "more or fewer than count admitted, or the window disagrees")
  @State
  public static class TwoCallsEachCountThree {
    static final long NOW = T + 42 * MS;
    final WindowLimiter limiter = new WindowLimiter(SECOND, 3, StressClocks.fixedAt(NOW), NOW);

    @Actor
    public void a1(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, NOW)) + StressClocks.admitted(limiter.tryAcquire(1, NOW));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, NOW)) + StressClocks.admitted(limiter.tryAcquire(1, NOW));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r3 = (int) limiter.inWindow();
    }
  }

  /**
   * As above, but the reading lies three buckets past the limiter's newest bucket: either actor may
   * be the one that moves the window (under its lock: seal, re-label, publish) while the other CASes
   * on the old head or waits for the move.
   */
  @JCStressTest
  @Description("WindowLimiter count 3, two actors x two calls at a reading in a bucket not yet installed")
  @Outcome(id = {"2, 1, 3", "1, 2, 3"}, expect = ACCEPTABLE, desc = "exactly count admitted and counted")
  @Outcome(expect = FORBIDDEN, desc = "more or fewer than count admitted, or the window disagrees")
  @State
  public static class TwoCallsEachAcrossAdvance {
    static final long START = T + 42 * MS;
    static final long NOW = T + 342 * MS;
    final WindowLimiter limiter = new WindowLimiter(SECOND, 3, StressClocks.fixedAt(NOW), START);

    @Actor
    public void a1(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, NOW)) + StressClocks.admitted(limiter.tryAcquire(1, NOW));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, NOW)) + StressClocks.admitted(limiter.tryAcquire(1, NOW));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r3 = (int) limiter.inWindow();
    }
  }
}
