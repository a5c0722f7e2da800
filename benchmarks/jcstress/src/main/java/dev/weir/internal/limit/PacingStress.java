package dev.weir.internal.limit;

import static dev.weir.internal.limit.StressClocks.MS;
import static dev.weir.internal.limit.StressClocks.SECOND;
import static dev.weir.internal.limit.StressClocks.T;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link PacingLimiter} ({@code queue}), count 1 per second: one slot per second. The clock's
 * sleeper never sleeps (a queued call records its wait instead), so actors never stall. Two actors (jcstress needs a CPU per actor); one makes two calls in sequence.
 */
public final class PacingStress {

  private PacingStress() {
  }

  /** Max queueing 0, three calls on two actors at the present reading: exactly one passes. r1..r3: 1 if admitted. */
  @JCStressTest
  @Description("PacingLimiter 1/s, max queueing 0, three calls on two actors at the same reading")
  @Outcome(id = {"1, 0, 0", "0, 1, 0", "0, 0, 1"}, expect = ACCEPTABLE, desc = "one admission per spacing")
  @Outcome(expect = FORBIDDEN, desc = "two admissions within one spacing, or none")
  @State
  public static class SameReading {
    final PacingLimiter limiter = new PacingLimiter(SECOND, 1, 0, StressClocks.fixedAt(T), T - 10 * MS);

    @Actor
    public void a1(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, T));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, T));
      r.r3 = StressClocks.admitted(limiter.tryAcquire(1, T));
    }
  }

  /**
   * Max queueing 0, readings T (present), T - 1 ms and T - 5 ms (late), all within one spacing:
   * at most one passes, whichever arrives first, and a late one never restarts the schedule.
   */
  @JCStressTest
  @Description("PacingLimiter 1/s, max queueing 0, readings T, T - 1 ms, T - 5 ms (present T)")
  @Outcome(id = {"1, 0, 0", "0, 1, 0", "0, 0, 1"}, expect = ACCEPTABLE, desc = "one admission per spacing")
  @Outcome(expect = FORBIDDEN, desc = "two admissions within one spacing, or none")
  @State
  public static class OutOfOrder {
    final PacingLimiter limiter = new PacingLimiter(SECOND, 1, 0, StressClocks.fixedAt(T), T - 10 * MS);

    @Actor
    public void present(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, T));
    }

    @Actor
    public void late1msThenLate5ms(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, T - MS));
      r.r3 = StressClocks.admitted(limiter.tryAcquire(1, T - 5 * MS));
    }
  }

  /**
   * Max queueing 1.5 s, three calls on two actors at the present reading: the slots are T and T + 1 s; the third
   * would wait 2 s and is refused. r1..r3: 0 if refused, else 1 + the wait in whole milliseconds that
   * the limiter asked the sleeper for (1 = at once, 1001 = one spacing later). Two actors on one slot,
   * or three admitted, would break the spacing.
   */
  @JCStressTest
  @Description("PacingLimiter 1/s, max queueing 1.5 s, three calls on two actors at the same reading: distinct slots")
  @Outcome(id = {"1, 1001, 0", "1, 0, 1001", "1001, 1, 0", "0, 1, 1001", "1001, 0, 1", "0, 1001, 1"},
      expect = ACCEPTABLE, desc = "slots T and T + 1 s, the third refused")
  @Outcome(expect = FORBIDDEN, desc = "a shared slot, a third admission, or a wrong wait")
  @State
  public static class QueueSlots {
    static final ThreadLocal<long[]> WAITED = ThreadLocal.withInitial(() -> new long[1]);
    final PacingLimiter limiter = new PacingLimiter(SECOND, 1, 1_500 * MS,
        StressClocks.fixedAt(T, nanos -> WAITED.get()[0] += nanos), T - 10 * MS);

    private int call() {
      long[] waited = WAITED.get();
      waited[0] = 0;
      if (limiter.tryAcquire(1, T) < 0) {
        return 0;
      }
      return 1 + (int) (waited[0] / MS);
    }

    @Actor
    public void a1(III_Result r) {
      r.r1 = call();
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = call();
      r.r3 = call();
    }
  }
}
