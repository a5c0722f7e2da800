package dev.weir.internal.limit;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import java.time.Duration;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The hand-off of a waiting {@code threads} rule ({@link Waiters}): limit 1, its one place held
 * when the test starts. Actor 1 gives the place back; actor 2 asks for one, waiting up to 1 s. In
 * every interleaving actor 2 must get the place: either the release sees it queued and hands the
 * place over, or its own hand-off, after it queued, sees the place free. A lost hand-off shows as a
 * refusal after the full second. r1: 1 when actor 2 was admitted; r2: calls inside afterwards, as
 * the arbiter counts them (1: actor 2's place, nothing leaked or created).
 */
@JCStressTest
@Description("Waiting threads rule: a release racing a call that queues for the place")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the queued call got the released place")
@Outcome(expect = FORBIDDEN, desc = "a lost hand-off (refused after waiting), or a place leaked or created")
@State
public class WaitingBulkheadStress {

  final EngineClock clock = new EngineClock(Ticker.system(), Sleeper.system());
  final ConcurrencyLimiter limiter = new ConcurrencyLimiter(FlowRule.builder("r").grade(FlowGrade.THREADS).count(1)
      .maxQueueingTime(Duration.ofSeconds(1)).build(), clock);

  {
    limiter.tryAcquire(1, 0);
  }

  @Actor
  public void releaser() {
    limiter.release(1);
  }

  @Actor
  public void waiter(II_Result r) {
    r.r1 = limiter.tryAcquire(1, clock.readFresh()) >= 0 ? 1 : 0;
  }

  @Arbiter
  public void arbiter(II_Result r) {
    r.r2 = limiter.inside();
  }
}
