package dev.weir.internal.limit;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link ConcurrencyLimiter}, limit 1, three calls on two actors: each call acquires; once admitted
 * it marks itself inside (a separate counter), records how many it saw inside, leaves, and gives its
 * place back (by {@code release}, as a completed call, or by {@code refund}, as a call a later rule
 * refused). Actor 1 makes a released call then a refunded one; actor 2 one released call.
 * r1..r3: 0 if refused, else the number inside the call saw (never above 1); r4: places free
 * afterwards, probed by the arbiter (must be 1: every place given back exactly once).
 */
@JCStressTest
@Description("ConcurrencyLimiter limit 1, three calls on two actors, acquiring and releasing/refunding")
@Outcome(id = "[01], [01], [01], 1", expect = ACCEPTABLE, desc = "never more than 1 inside; every place back")
@Outcome(expect = FORBIDDEN, desc = "2 inside at once, or places leaked or created (final count not 0)")
@State
public class ConcurrencyStress {

  final ConcurrencyLimiter limiter = new ConcurrencyLimiter(1);
  final AtomicInteger inside = new AtomicInteger();

  private int call(boolean refund) {
    long token = limiter.tryAcquire(1, 0);
    if (token < 0) {
      return 0;
    }
    int seen = inside.incrementAndGet();
    inside.decrementAndGet();
    if (refund) {
      limiter.refund(1, token);
    } else {
      limiter.release(1);
    }
    return seen;
  }

  @Actor
  public void a1(IIII_Result r) {
    r.r1 = call(false);
    r.r3 = call(true);
  }

  @Actor
  public void a2(IIII_Result r) {
    r.r2 = call(false);
  }

  @Arbiter
  public void arbiter(IIII_Result r) {
    int free = 0;
    for (int i = 0; i < 2; i++) {
      if (limiter.tryAcquire(1, 0) >= 0) {
        free++;
      }
    }
    r.r4 = free;
  }
}
