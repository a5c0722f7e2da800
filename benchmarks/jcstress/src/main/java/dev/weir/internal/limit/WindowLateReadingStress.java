package dev.weir.internal.limit;

import static dev.weir.internal.limit.StressClocks.MS;
import static dev.weir.internal.limit.StressClocks.SECOND;
import static dev.weir.internal.limit.StressClocks.T;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link WindowLimiter} across bucket boundaries, with readings out of order: the limiter starts in
 * bucket b; calls read the clock in b, in b + 3 (the present, what the ticker reads now), and
 * 2 s earlier (20 buckets behind, a thread descheduled for a long time). Every reading lands in one
 * window (that of b + 3 spans b - 6 .. b + 3), so whatever the order, the window must not admit more
 * than its count. r1..r3: 1 if admitted; r4: the window's count afterwards.
 *
 * <p>jcstress runs a test only with a CPU per actor; on the 2-core machine every test has two actors,
 * one of which makes two calls in sequence (standing for a third caller).
 */
public final class WindowLateReadingStress {

  static final long START = T + 42 * MS;           // bucket b
  static final long IN_B = T + 61 * MS;            // bucket b
  static final long PRESENT = T + 342 * MS;        // bucket b + 3
  static final long OLD = T + 42 * MS - 2 * SECOND; // bucket b - 20

  private WindowLateReadingStress() {
  }

  @JCStressTest
  @Description("WindowLimiter count 2; readings in bucket b, b + 3 (present) and b - 20 (late)")
  @Outcome(id = {"1, 1, 0, 2", "1, 0, 1, 2", "0, 1, 1, 2"}, expect = ACCEPTABLE, desc = "count admitted, all counted")
  @Outcome(id = {"1, 0, 0, 1", "0, 1, 0, 1", "0, 0, 1, 1"}, expect = ACCEPTABLE_INTERESTING,
      desc = "fewer than count admitted (a late call refused where a punctual one would pass)")
  @Outcome(id = {"1, 1, 1, .*"}, expect = FORBIDDEN, desc = "more than count admitted in one window")
  @Outcome(expect = FORBIDDEN, desc = "the window's count disagrees with the admissions")
  @State
  public static class CountTwo {
    final WindowLimiter limiter = new WindowLimiter(SECOND, 2, StressClocks.fixedAt(PRESENT), START);

    @Actor
    public void inBucketBThenLate(IIII_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, IN_B));
      r.r3 = StressClocks.admitted(limiter.tryAcquire(1, OLD));
    }

    @Actor
    public void present(IIII_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, PRESENT));
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      r.r4 = (int) limiter.inWindow();
    }
  }

  /**
   * Count 1; the actor in bucket b acquires and then refunds (a later rule refused its call), the
   * others acquire and keep. At most one kept admission, whatever the order of the refund; r1 is 1
   * if the refunding actor was admitted before its refund.
   */
  @JCStressTest
  @Description("WindowLimiter count 1; acquire-then-refund in bucket b races a present and a late reading")
  @Outcome(id = {"[01], 1, 0, 1", "[01], 0, 1, 1"}, expect = ACCEPTABLE, desc = "one kept admission, counted")
  @Outcome(id = {"1, 0, 0, 0"}, expect = ACCEPTABLE,
      desc = "the refunding actor held the permit while both others tried; refunded afterwards")
  @Outcome(id = {".*, 1, 1, .*"}, expect = FORBIDDEN, desc = "two kept admissions in one window of count 1")
  @Outcome(expect = FORBIDDEN, desc = "the window's count disagrees with the kept admissions")
  @State
  public static class RefundCountOne {
    final WindowLimiter limiter = new WindowLimiter(SECOND, 1, StressClocks.fixedAt(PRESENT), START);

    @Actor
    public void acquireThenRefund(IIII_Result r) {
      long token = limiter.tryAcquire(1, IN_B);
      if (token >= 0) {
        limiter.refund(1, token);
        r.r1 = 1;
      }
    }

    @Actor
    public void presentThenLate(IIII_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, PRESENT));
      r.r3 = StressClocks.admitted(limiter.tryAcquire(1, OLD));
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      r.r4 = (int) limiter.inWindow();
    }
  }

  /**
   * Count 2 with one permit already taken in bucket b (before the actors start). Two actors read the
   * present, bucket b + 10, where b has just left the window; one read bucket b + 9 (late by one
   * bucket), whose window still holds b's admission. If the late actor comes first it is admitted at
   * b + 9 (filling that window) and one present actor more at b + 10; if it comes after the window
   * moved to b + 10, it is decided on a fresh reading there. Either way exactly 2 pass, never 3.
   */
  @JCStressTest
  @Description("WindowLimiter count 2; a bucket leaves the window while readings straddle the edge")
  @Outcome(id = {"1, 1, 0, 2", "1, 0, 1, 2", "0, 1, 1, 2"}, expect = ACCEPTABLE, desc = "count admitted in the new window")
  @Outcome(id = {"1, 0, 0, 1", "0, 1, 0, 1", "0, 0, 1, 1"}, expect = ACCEPTABLE_INTERESTING,
      desc = "fewer than count admitted")
  @Outcome(id = {"1, 1, 1, .*"}, expect = FORBIDDEN, desc = "more than count admitted in one window")
  @Outcome(expect = FORBIDDEN, desc = "the window's count disagrees with the admissions")
  @State
  public static class EdgeCountTwo {
    static final long EDGE_PRESENT = START + SECOND;          // bucket b + 10
    static final long ONE_BEFORE = START + SECOND - 100 * MS; // bucket b + 9
    final WindowLimiter limiter = new WindowLimiter(SECOND, 2, StressClocks.fixedAt(EDGE_PRESENT), START);

    {
      if (limiter.tryAcquire(1, START) < 0) {
        throw new IllegalStateException("setup admission refused");
      }
    }

    @Actor
    public void lateByOneBucketThenPresent(IIII_Result r) {
      r.r3 = StressClocks.admitted(limiter.tryAcquire(1, ONE_BEFORE));
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, EDGE_PRESENT));
    }

    @Actor
    public void present(IIII_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, EDGE_PRESENT));
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      r.r4 = (int) limiter.inWindow();
    }
  }
}
