package dev.weir.internal.cluster;

import static dev.weir.internal.cluster.LeaseRig.EARLY;
import static dev.weir.internal.cluster.LeaseRig.LATE;
import static dev.weir.internal.cluster.LeaseRig.MS;
import static dev.weir.internal.cluster.LeaseRig.T;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.IIIII_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link LeasedFlowLimiter}'s lease protocol, driven through its real code on a {@link LeaseStore}
 * that answers at once (see {@link LeaseRig} for the set-ups). Three invariants:
 * <ul>
 *   <li>Spends racing a close (the timer ending a lease, a renewal installing the next one, the
 *       lease renewed ahead replacing it): every permit of a lease is spent by exactly one call or
 *       given back as unused by the close, never both, never neither (spent + given back = granted),
 *       and over all leases every permit granted is accounted for once.
 *   <li>A refund racing a close: the refunded permit is back in the open lease (and given back
 *       with it), or, the lease closed, stays counted in the store; a closed lease never becomes
 *       spendable again and gives back nothing more.
 *   <li>Two calls turning a cold limiter hot at once, or a span's reset racing its counting: no
 *       exception, every call admitted (this store admits all), and one {@code ClusterLeases} asked.
 * </ul>
 * An actor that throws reports 9 in its result field: always forbidden.
 */
public final class LeaseStress {

  /** An actor's report of a call that threw. */
  static final int THREW = 9;

  private LeaseStress() {
  }

  /** Admissions of {@code a} and {@code b} spent from lease {@code id}. */
  static int fromLease(long a, long b, long id) {
    return (LeaseRig.fromLease(a, id) ? 1 : 0) + (LeaseRig.fromLease(b, id) ? 1 : 0);
  }

  static int fromLeases(long... tokens) {
    int spent = 0;
    for (long token : tokens) {
      spent += LeaseRig.fromLease(token) ? 1 : 0;
    }
    return spent;
  }

  static int admitted(long... tokens) {
    int admitted = 0;
    for (long token : tokens) {
      admitted += token >= 0 ? 1 : 0;
    }
    return admitted;
  }

  /**
   * Lease 1 (6 permits, valid until T + 10 ms); actor 1 spends one permit twice at T + 1 ms while
   * actor 2, the lease timer at T + 11 ms, ends the lease and gives back what it had left. r1:
   * actor 1's permits spent from lease 1; r2: permits of lease 1 given back; r3: permits granted
   * (all leases) less spent less given back, after the arbiter gives back what the limiter holds;
   * r4: actor 1's admissions.
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: spends racing the timer's close of their lease; spent + given back = granted")
  @Outcome(id = "2, 4, 0, 2", expect = ACCEPTABLE, desc = "both spends before the close; 4 given back")
  @Outcome(id = "1, 5, 0, 2", expect = ACCEPTABLE, desc = "one spend before the close, the other from the next lease")
  @Outcome(id = "0, 6, 0, 2", expect = ACCEPTABLE, desc = "closed first: all 6 given back, both spent from later leases")
  @Outcome(expect = FORBIDDEN, desc = "a permit spent and given back, or lost; a call refused or failing")
  @State
  public static class SpendsRacingTimer {
    final LeaseRig rig = new LeaseRig();
    long t1;
    long t2;
    int threw;

    public SpendsRacingTimer() {
      rig.leaseOfSix(6);
      rig.present = LATE;
    }

    @Actor
    public void a1() {
      try {
        t1 = rig.limiter.tryAcquire(1, EARLY);
        t2 = rig.limiter.tryAcquire(1, EARLY);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Actor
    public void a2() {
      rig.limiter.sweep();
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      rig.limiter.giveBackAll();
      r.r1 = fromLease(t1, t2, 1);
      r.r2 = (int) rig.store.givenBack(1);
      r.r3 = (int) rig.unaccounted(fromLeases(t1, t2));
      r.r4 = threw != 0 ? threw : admitted(t1, t2);
    }
  }

  /**
   * As {@link SpendsRacingTimer}, but actor 2 is a call at T + 11 ms: it finds lease 1 ended, closes
   * it and settles what it left with its own request, installs the next lease and spends from it.
   * r4: admissions of both actors.
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: spends racing a renewal that closes their lease; spent + given back = granted")
  @Outcome(id = "2, 4, 0, 3", expect = ACCEPTABLE, desc = "both spends before the close; 4 settled")
  @Outcome(id = "1, 5, 0, 3", expect = ACCEPTABLE, desc = "one spend before the close, the other from a later lease")
  @Outcome(id = "0, 6, 0, 3", expect = ACCEPTABLE, desc = "closed first: all 6 settled, both spent from later leases")
  @Outcome(expect = FORBIDDEN, desc = "a permit spent and settled, or lost; a call refused or failing")
  @State
  public static class SpendsRacingRenewal {
    final LeaseRig rig = new LeaseRig();
    long t1;
    long t2;
    long t3;
    int threw;

    public SpendsRacingRenewal() {
      rig.leaseOfSix(6);
      rig.present = LATE;
    }

    @Actor
    public void a1() {
      try {
        t1 = rig.limiter.tryAcquire(1, EARLY);
        t2 = rig.limiter.tryAcquire(1, EARLY);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Actor
    public void a2() {
      try {
        t3 = rig.limiter.tryAcquire(1, LATE);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      rig.limiter.giveBackAll();
      r.r1 = fromLease(t1, t2, 1);
      r.r2 = (int) rig.store.givenBack(1);
      r.r3 = (int) rig.unaccounted(fromLeases(t1, t2, t3));
      r.r4 = threw != 0 ? threw : admitted(t1, t2, t3);
    }
  }

  /**
   * Lease 3 in hand (2 permits left) and lease 4 (10) renewed ahead, at T + 2 ms. Actor 1 spends
   * one permit twice; actor 2 asks 3, which lease 3 cannot serve, so it makes lease 4 the current
   * one, closing lease 3 (its rest settled) while actor 1 may be spending from it. r1: actor 1's
   * permits spent from lease 3; r2: permits of lease 3 given back; r3, r4 as above (all leases,
   * both actors' admissions).
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: spends racing the promotion of the lease renewed ahead; spent + given back = granted")
  @Outcome(id = "2, 0, 0, 3", expect = ACCEPTABLE, desc = "both spends from lease 3, then promoted with nothing left")
  @Outcome(id = "1, 1, 0, 3", expect = ACCEPTABLE, desc = "one spend from lease 3, one left and given back")
  @Outcome(id = "0, 2, 0, 3", expect = ACCEPTABLE, desc = "promoted first: both left given back, both spent from lease 4")
  @Outcome(expect = FORBIDDEN, desc = "a permit spent and given back, or lost; a call refused or failing")
  @State
  public static class SpendsRacingPromotion {
    static final long NOW = T + 2 * MS;
    final LeaseRig rig = new LeaseRig();
    long t1;
    long t2;
    long t3;
    int threw;

    public SpendsRacingPromotion() {
      rig.leaseWithNext();
    }

    @Actor
    public void a1() {
      try {
        t1 = rig.limiter.tryAcquire(1, NOW);
        t2 = rig.limiter.tryAcquire(1, NOW);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Actor
    public void a2() {
      try {
        t3 = rig.limiter.tryAcquire(3, NOW);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      rig.limiter.giveBackAll();
      r.r1 = fromLease(t1, t2, 3);
      r.r2 = (int) rig.store.givenBack(3);
      r.r3 = (int) rig.unaccounted(fromLeases(t1, t2) + (LeaseRig.fromLease(t3) ? 3 : 0));
      r.r4 = threw != 0 ? threw : admitted(t1, t2, t3);
    }
  }

  /**
   * Lease 1 with 5 permits left, one permit spent by a call at T; actor 1 refunds that permit while
   * actor 2, the lease timer at T + 11 ms, ends the lease. r1: lease 1's permits left after both
   * (-1: closed); r2: permits of lease 1 given back by the close; r3: permits of lease 1 given back
   * later, when the arbiter gives back all the limiter holds (a closed lease holds none).
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: a refund racing the timer's close; a closed lease never spendable again")
  @Outcome(id = "-1, 6, 0", expect = ACCEPTABLE, desc = "refunded into the open lease, then all 6 given back")
  @Outcome(id = "-1, 5, 0", expect = ACCEPTABLE, desc = "closed first: the refunded permit stays counted in the store")
  @Outcome(expect = FORBIDDEN, desc = "the closed lease holds permits again, or gives back more than it had")
  @State
  public static class RefundRacingTimer {
    final LeaseRig rig = new LeaseRig();
    final Lease lease;
    final long token;

    public RefundRacingTimer() {
      token = rig.leaseOfSix(5);
      lease = rig.current();
      rig.present = LATE;
    }

    @Actor
    public void a1() {
      rig.limiter.refund(1, token);
    }

    @Actor
    public void a2() {
      rig.limiter.sweep();
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r1 = (int) lease.get();
      r.r2 = (int) rig.store.givenBack(1);
      rig.limiter.giveBackAll();
      r.r3 = (int) (rig.store.givenBack(1) - r.r2);
    }
  }

  /**
   * As {@link RefundRacingTimer}, but actor 2 is a call at T + 11 ms: it finds lease 1 ended, closes
   * it and settles what it left with its request, and spends from the next lease. r1: lease 1's
   * permits left after both (-1: closed); r2: permits of lease 1 settled; r3: permits of lease 1
   * given back later (none); r4: actor 2's admission.
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: a refund racing a renewal that closes its lease; a closed lease never spendable again")
  @Outcome(id = "-1, 6, 0, 1", expect = ACCEPTABLE, desc = "refunded into the open lease, then all 6 settled")
  @Outcome(id = "-1, 5, 0, 1", expect = ACCEPTABLE, desc = "closed first: the refunded permit stays counted in the store")
  @Outcome(expect = FORBIDDEN, desc = "the closed lease holds permits again, gives back more than it had, or a call failed")
  @State
  public static class RefundRacingRenewal {
    final LeaseRig rig = new LeaseRig();
    final Lease lease;
    final long token;
    long t3;
    int threw;

    public RefundRacingRenewal() {
      token = rig.leaseOfSix(5);
      lease = rig.current();
      rig.present = LATE;
    }

    @Actor
    public void a1() {
      try {
        rig.limiter.refund(1, token);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Actor
    public void a2() {
      try {
        t3 = rig.limiter.tryAcquire(1, LATE);
      } catch (Throwable e) {
        threw = THREW;
      }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
      r.r1 = (int) lease.get();
      r.r2 = (int) rig.store.givenBack(1);
      rig.limiter.giveBackAll();
      r.r3 = (int) (rig.store.givenBack(1) - r.r2);
      r.r4 = threw != 0 ? threw : admitted(t3);
    }
  }

  /**
   * A cold limiter with 7 permits in its span (each decided per call); both actors make a call of 1
   * at the same reading, so both reach the 8 that turn it hot and both may make its leases. r1, r2:
   * the actors' admissions; r3: hot afterwards; r4: {@code ClusterLeases} made; r5: those that
   * received a request or a give-back (the limiter keeps and uses one).
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: two calls turn a cold limiter hot at once; one ClusterLeases used")
  @Outcome(id = "1, 1, 1, 1, 1", expect = ACCEPTABLE, desc = "leases made once, both admitted, hot")
  @Outcome(id = "1, 1, 1, 2, 1", expect = ACCEPTABLE_INTERESTING,
      desc = "both made leases (documented race): one kept and used, the other never")
  @Outcome(expect = FORBIDDEN, desc = "a call refused or throwing, cold afterwards, or requests to two ClusterLeases")
  @State
  public static class TwoActorsHeat {
    final LeaseRig rig = new LeaseRig();

    public TwoActorsHeat() {
      rig.cold(7);
    }

    @Actor
    public void a1(IIIII_Result r) {
      r.r1 = call(rig, T);
    }

    @Actor
    public void a2(IIIII_Result r) {
      r.r2 = call(rig, T);
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
      r.r3 = rig.limiter.hot() ? 1 : 0;
      r.r4 = rig.store.made.get();
      r.r5 = Integer.bitCount(rig.store.used.get());
    }
  }

  /**
   * A cold limiter with 7 permits in its span started at T; actor 1 calls at T + 10 ms (a validity
   * later: it starts a new span, resetting the count) while actor 2 calls at T + 1 ms (counted in
   * the old span, making 8, or in the new one, after the reset). Counts lost to the race only delay
   * leasing. r1, r2: admissions; r3: hot afterwards; r4: {@code ClusterLeases} made; r5: those that
   * received a request or a give-back.
   */
  @JCStressTest
  @Description("LeasedFlowLimiter: a cold span's reset racing its counting; no exception, every call admitted")
  @Outcome(id = "1, 1, 0, 0, 0", expect = ACCEPTABLE, desc = "reset first: both counted in the new span, still cold")
  @Outcome(id = "1, 1, 1, 1, 1", expect = ACCEPTABLE, desc = "actor 2 made 8 in the old span: hot, leases made once")
  @Outcome(id = "1, 1, 0, 1, 1", expect = ACCEPTABLE,
      desc = "turned hot, then the next request measured a rate below the threshold: cold again")
  @Outcome(id = "1, 1, 1, 2, 1", expect = ACCEPTABLE_INTERESTING, desc = "both made leases: one kept and used")
  @Outcome(id = "1, 1, 0, 2, 1", expect = ACCEPTABLE_INTERESTING, desc = "both made leases, one used; cold again")
  @Outcome(expect = FORBIDDEN, desc = "a call refused or throwing, hot without leases, or requests to two ClusterLeases")
  @State
  public static class SpanResetRacingCount {
    static final long NEW_SPAN = T + LeaseStore.VALID;
    final LeaseRig rig = new LeaseRig();

    public SpanResetRacingCount() {
      rig.cold(7);
      rig.present = NEW_SPAN;
    }

    @Actor
    public void a1(IIIII_Result r) {
      r.r1 = call(rig, NEW_SPAN);
    }

    @Actor
    public void a2(IIIII_Result r) {
      r.r2 = call(rig, T + MS);
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
      r.r3 = rig.limiter.hot() ? 1 : 0;
      r.r4 = rig.store.made.get();
      r.r5 = Integer.bitCount(rig.store.used.get());
    }
  }

  /** 1 when a call of one permit at {@code now} is admitted, 0 when refused, {@link #THREW} when it throws. */
  static int call(LeaseRig rig, long now) {
    try {
      return rig.limiter.tryAcquire(1, now) >= 0 ? 1 : 0;
    } catch (Throwable e) {
      return THREW;
    }
  }
}
