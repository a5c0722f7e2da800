package dev.weir.internal.limit;

import static dev.weir.internal.limit.StressClocks.MS;
import static dev.weir.internal.limit.StressClocks.SECOND;
import static dev.weir.internal.limit.StressClocks.T;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link TokenBucketLimiter}, count 2 per second, no burst: capacity 2 (one permit per 500 ms). The
 * readings lie within 3 ms of each other, so the bound is {@code 3 ms / 500 ms + 2}: at most 2 pass,
 * in any order of arrival. r1..r3: 1 if admitted.
 */
public final class TokenBucketStress {

  private TokenBucketStress() {
  }

  @JCStressTest
  @Description("TokenBucketLimiter capacity 2, three calls on two actors at the same reading")
  @Outcome(id = {"1, 1, 0", "1, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "capacity admitted")
  @Outcome(id = {"1, 0, 0", "0, 1, 0", "0, 0, 1"}, expect = ACCEPTABLE_INTERESTING, desc = "fewer than capacity")
  @Outcome(expect = FORBIDDEN, desc = "more than capacity, or none")
  @State
  public static class SameReading {
    final TokenBucketLimiter limiter = new TokenBucketLimiter(SECOND, 2, 0, StressClocks.fixedAt(T), T);

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

  @JCStressTest
  @Description("TokenBucketLimiter capacity 2, three calls on two actors with readings T, T - 1 ms, T - 3 ms (present T)")
  @Outcome(id = {"1, 1, 0", "1, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "capacity admitted")
  @Outcome(id = {"1, 0, 0", "0, 1, 0", "0, 0, 1"}, expect = ACCEPTABLE_INTERESTING, desc = "fewer than capacity")
  @Outcome(expect = FORBIDDEN, desc = "more than capacity, or none")
  @State
  public static class OutOfOrder {
    final TokenBucketLimiter limiter = new TokenBucketLimiter(SECOND, 2, 0, StressClocks.fixedAt(T), T - 10 * MS);

    @Actor
    public void present(III_Result r) {
      r.r1 = StressClocks.admitted(limiter.tryAcquire(1, T));
    }

    @Actor
    public void late1msThenLate3ms(III_Result r) {
      r.r2 = StressClocks.admitted(limiter.tryAcquire(1, T - MS));
      r.r3 = StressClocks.admitted(limiter.tryAcquire(1, T - 3 * MS));
    }
  }
}
