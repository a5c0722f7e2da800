package dev.weir.internal.limit;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.weir.Criticality;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link AdaptiveLimiter}'s lock-free parts: the admission CAS under the published word (the cap,
 * and criticality order), every place given back, and the round that two completions both find
 * over, ended exactly once.
 */
public final class AdaptiveStress {

  static final long MS = 1_000_000L;

  /**
   * Limit 1, three calls on two actors: each call acquires; once admitted it marks itself inside
   * (a separate counter), records how many it saw inside, leaves, and gives its place back (by
   * {@code complete}, as a call that completed, or by {@code refund}, as a call a later rule
   * refused). Actor 1 makes a completed call then a refunded one; actor 2 a completed one. r1..r3:
   * 0 if refused, else the number inside the call saw (never above 1); r4: the limiter's calls
   * inside afterwards (must be 0: every place given back exactly once).
   */
  @JCStressTest
  @Description("AdaptiveLimiter limit 1, three calls on two actors, acquiring and completing/refunding")
  @Outcome(id = "[01], [01], [01], 0", expect = ACCEPTABLE, desc = "never more than 1 inside; every place back")
  @Outcome(expect = FORBIDDEN, desc = "2 inside at once, or places leaked or created")
  @State
  public static class Cap {
    final AdaptiveLimiter limiter = new AdaptiveLimiter(1, 1, 1, 0);
    final AtomicInteger inside = new AtomicInteger();

    private int call(boolean refund, Criticality criticality) {
      long token = limiter.tryAcquire(1, MS, criticality);
      if (token < 0) {
        return 0;
      }
      int seen = inside.incrementAndGet();
      inside.decrementAndGet();
      if (refund) {
        limiter.refund(1, token);
      } else {
        limiter.complete(1, token, 0, MS, AdaptiveLimiter.SUCCEEDED);
      }
      return seen;
    }

    @Actor
    public void a1(IIII_Result r) {
      r.r1 = call(false, Criticality.CRITICAL);
      r.r3 = call(true, Criticality.CRITICAL);
    }

    @Actor
    public void a2(IIII_Result r) {
      r.r2 = call(false, Criticality.CRITICAL_PLUS);
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      r.r4 = limiter.inside();
    }
  }

  /**
   * Limit 2 with the reserve of a fresh limit (CRITICAL the highest present, a quarter of the limit
   * per rank below): a {@code SHEDDABLE_PLUS} call is admitted below 1 inside, a {@code CRITICAL}
   * one below 2. They race for the places: the CRITICAL call is always admitted, whatever the
   * order (a higher criticality is never refused where a lower one would be admitted). r1: the
   * SHEDDABLE_PLUS call admitted (1) or not; r2: the CRITICAL call admitted; neither leaves.
   */
  @JCStressTest
  @Description("AdaptiveLimiter limit 2: SHEDDABLE_PLUS and CRITICAL race; CRITICAL is never refused")
  @Outcome(id = {"1, 1", "0, 1"}, expect = ACCEPTABLE, desc = "CRITICAL admitted; SHEDDABLE_PLUS as it came")
  @Outcome(expect = FORBIDDEN, desc = "CRITICAL refused")
  @State
  public static class CriticalityOrder {
    final AdaptiveLimiter limiter = new AdaptiveLimiter(1, 2, 2, 0);

    @Actor
    public void a1(II_Result r) {
      r.r1 = limiter.tryAcquire(1, MS, Criticality.SHEDDABLE_PLUS) >= 0 ? 1 : 0;
    }

    @Actor
    public void a2(II_Result r) {
      r.r2 = limiter.tryAcquire(1, MS, Criticality.CRITICAL) >= 0 ? 1 : 0;
    }
  }

  /**
   * A round one sample short of ending, past its end: both actors complete a call at a reading
   * after it, each may find the round over and end it under the update lock. It is ended exactly
   * once, and no place is lost. r1: rounds judged (must be 1); r2: calls inside afterwards (0);
   * r3: the limit within its bounds (1).
   */
  @JCStressTest
  @Description("AdaptiveLimiter: two completions find the same round over; it ends exactly once")
  @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "one round ended; every place back")
  @Outcome(expect = FORBIDDEN, desc = "the round ended twice or not at all, or a place lost")
  @State
  public static class RoundEnd {
    final AdaptiveLimiter limiter = new AdaptiveLimiter(1, 100, 20, 0);

    public RoundEnd() {
      for (int i = 0; i < AdaptiveController.MIN_SAMPLES - 1; i++) {
        limiter.tryAcquire(1, MS, Criticality.CRITICAL);
        limiter.complete(1, 0, 0, MS, AdaptiveLimiter.SUCCEEDED);
      }
    }

    private void completeOne() {
      long token = limiter.tryAcquire(1, 200 * MS, Criticality.CRITICAL);
      if (token >= 0) {
        limiter.complete(1, token, 180 * MS, 200 * MS, AdaptiveLimiter.SUCCEEDED);
      }
    }

    @Actor
    public void a1() {
      completeOne();
    }

    @Actor
    public void a2() {
      completeOne();
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r1 = (int) limiter.rounds();
      r.r2 = limiter.inside();
      int limit = limiter.limit();
      r.r3 = limit >= 1 && limit <= 100 ? 1 : 0;
    }
  }
}
