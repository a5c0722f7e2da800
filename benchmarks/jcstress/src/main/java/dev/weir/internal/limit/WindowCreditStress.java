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
 * {@link WindowLimiter}'s per-thread credits: two threads leasing and spending at once on a large
 * window. Every admission is counted exactly once: the window's count less the credits not yet
 * spent equals the admissions, whether the actors share a cell or not, and whichever CAS (slot or
 * cell) loses a race.
 */
public final class WindowCreditStress {

  private WindowCreditStress() {
  }

  /** Two actors, two calls each, count far above the lease floor. r3: inWindow - unspent credits. */
  @JCStressTest
  @Description("WindowLimiter credits: two actors lease and spend at one reading; admissions are conserved")
  @Outcome(id = "2, 2, 4", expect = ACCEPTABLE, desc = "all admitted, each counted once")
  @Outcome(expect = FORBIDDEN, desc = "a refusal, or an admission counted twice or not at all")
  @State
  public static class TwoActorsLeaseAndSpend {
    static final long NOW = T + 42 * MS;
    final WindowLimiter limiter = new WindowLimiter(SECOND, 100_000, StressClocks.fixedAt(NOW), NOW);

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
      r.r3 = (int) (limiter.inWindow() - limiter.unspentCredits());
    }
  }

  /**
   * One actor leases in the newest bucket while the other, at a reading one bucket later, moves the
   * window and leases there: the first actor's credit is spent in its own bucket or given back to it.
   * r1, r2: admissions; r3: inWindow - unspent credits of the newest bucket - credits stranded in
   * older buckets (none may be: a stale credit is given back when its cell is next written).
   */
  @JCStressTest
  @Description("WindowLimiter credits across a bucket move: admissions are conserved")
  @Outcome(id = "2, 2, 4", expect = ACCEPTABLE, desc = "all admitted, each counted once")
  @Outcome(expect = FORBIDDEN, desc = "a refusal, or an admission counted twice or not at all")
  @State
  public static class LeaseAcrossAdvance {
    static final long START = T + 42 * MS;
    static final long LATER = T + 142 * MS;
    final WindowLimiter limiter = new WindowLimiter(SECOND, 100_000, StressClocks.fixedAt(LATER), START);

    @Actor
    public void a1(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, START)) + StressClocks.admitted(limiter.tryAcquire(1, START));
    }

    @Actor
    public void a2(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, LATER)) + StressClocks.admitted(limiter.tryAcquire(1, LATER));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r3 = (int) (limiter.inWindow() - limiter.unspentCredits() - limiter.strandedCredits());
    }
  }
}
