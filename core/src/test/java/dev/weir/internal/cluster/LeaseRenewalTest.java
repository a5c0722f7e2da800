package dev.weir.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.LeaseRequest;
import dev.weir.internal.limit.WindowLimiter;
import dev.weir.internal.time.EngineClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Renewals ahead sent by the engine's renewal thread ({@link LeaseRenewer}), renewed earlier by the
 * measured round trip ({@link RoundTripTimes}, {@link Lease}'s marks), and the rate that places the
 * mark ({@link SpendRate}): exact arithmetic on a driven ticker, an interleaving where the renewal's
 * answer arrives early (the lease in hand still serving) and late (after the lease ended) while calls
 * proceed, and the thread's end with the engine.
 */
@Timeout(30)
class LeaseRenewalTest {

  private static final long T = 3_600_000_000_000_000L;
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long VALID = 10 * MS; // a 1 s window's validity

  @Test
  void theHighQuantileIsTheLargestOfTheLast64RoundTrips() {
    RoundTripTimes times = new RoundTripTimes();
    assertThat(times.high()).isZero();
    times.record(1000);
    for (int i = 1; i <= 63; i++) {
      times.record(i);
    }
    assertThat(times.high()).isEqualTo(1000);
    times.record(5);
    assertThat(times.high()).as("the outlier left the ring after 64 more").isEqualTo(63);
    times.record(-7);
    assertThat(times.high()).as("a late reading's negative time counts as 0").isEqualTo(63);
  }

  @Test
  void theRateFollowsARiseAtOnceAndAFallOverAValidity() {
    SpendRate rate = new SpendRate(VALID);
    assertThat(rate.measure(T, 0, false)).as("the first request only starts").isFalse();
    assertThat(rate.measure(T, 10, false)).as("no time passed").isFalse();
    assertThat(rate.measure(T + MS, 1000, false)).isTrue(); // 990 permits in 1 ms
    assertThat(rate.sample()).isEqualTo(990.0 / MS);
    assertThat(rate.rate()).as("a rise at once").isEqualTo(990.0 / MS);
    // 5 ms at 110 permits/ms: weight 1/2, halfway down
    assertThat(rate.measure(T + 6 * MS, 1550, false)).isTrue();
    assertThat(rate.sample()).isEqualTo(110.0 / MS);
    assertThat(rate.rate()).isEqualTo(990.0 / MS + 0.5 * (110.0 / MS - 990.0 / MS));
    // a restart (turned hot again) takes no sample
    assertThat(rate.measure(T + 7 * MS, 1600, true)).isFalse();
    // a validity or more: weight 1, the sample
    assertThat(rate.measure(T + 17 * MS, 1600, false)).isTrue();
    assertThat(rate.rate()).isZero();
  }

  @Test
  void aLeaseIsRenewedEarlierThanHalfAndTheLastQuarterWhenItsRoundTripsAreSlow() {
    ClusterLease grant = new ClusterLease(false, 100, VALID, 0, 0, 0, Long.MAX_VALUE, "r");
    Lease quick = new Lease(1, grant, T, VALID, 0, 0);
    assertThat(quick.lowWater).isEqualTo(50);
    assertThat(quick.renewAt).isEqualTo(T + VALID - VALID / 4);
    Lease slow = new Lease(2, grant, T, VALID, 70, 6 * MS);
    assertThat(slow.lowWater).isEqualTo(70);
    assertThat(slow.renewAt).isEqualTo(T + 4 * MS);
    Lease slower = new Lease(3, grant, T, VALID, 1000, 20 * MS);
    assertThat(slower.lowWater).as("at most the block: renewed at the first spend").isEqualTo(100);
    assertThat(slower.renewAt).as("at most a validity before its end").isEqualTo(T);
  }

  /**
   * A renewal handed to the renewal thread is answered early (the lease in hand still has permits)
   * and later late (the lease in hand ended meanwhile), while calls go on spending: the early answer
   * waits as the next lease and is never added to the one in hand, the late one replaces the ended
   * lease, whose rest is settled once; no call is admitted beyond what was granted, and every permit
   * granted is either spent or given back, once.
   */
  @Test
  void aRenewalAnsweredEarlyOrLateWhileCallsProceedNeverCountsAPermitTwice() {
    FakeTicker ticker = new FakeTicker(T);
    ScriptedClusterStore store = new ScriptedClusterStore();
    ClusterGuard guard = new ClusterGuard(store,
        new ClusterOptions(Duration.ofSeconds(5), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64, true),
        new EngineClock(ticker, ticker), true);
    HandLeases leases = new HandLeases();
    ClusterLimit limit = new ClusterLimit("r", "flow", 1_000_000, Duration.ofSeconds(1));
    EngineClock clock = guard.clock;
    ClusterFlowLimiter perCall = new ClusterFlowLimiter(guard, limit, new WindowLimiter(1_000_000_000L, 1_000_000, clock, T),
        count -> new WindowLimiter(1_000_000_000L, count, clock, T));
    LeasedFlowLimiter limiter = new LeasedFlowLimiter(guard, () -> leases, perCall, 1_000_000, 1_000_000_000L);
    try {
      // 8 permits in a span: hot at once; the first lease (answered at once) grants 100.
      leases.grantNow = 100;
      long admitted = 0;
      assertThat(limiter.tryAcquire(8, T)).isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 1);
      admitted += 8;
      leases.grantNow = 0; // from now on the test answers
      for (int i = 0; i < 42; i++) { // down to 50 left: the low water, handed to the renewal thread
        assertThat(limiter.tryAcquire(1, T)).isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 1);
        admitted++;
      }
      LeaseRequest renewal = leases.awaitRequest(2);
      assertThat(renewal.ahead()).isTrue();
      for (int i = 0; i < 10; i++) { // the renewal is in flight: the calls spend the lease in hand
        assertThat(limiter.tryAcquire(1, T)).isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 1);
        admitted++;
      }
      // Early: answered 3 ms after it was wanted, with 40 permits still in hand.
      ticker.set(T + 3 * MS);
      leases.answer(1, 100);
      assertThat(limiter.leftInLease()).as("the renewal is not added to the lease in hand").isEqualTo(40);
      assertThat(limiter.nextLease()).isNotNull();
      assertThat(limiter.nextLease().get()).isEqualTo(100);
      assertThat(guard.roundTrips.high()).isEqualTo(3 * MS);
      Lease second = limiter.nextLease();
      assertThat(second.endsAt).as("from the renewal thread's reading before the send").isEqualTo(T + VALID);
      assertThat(second.renewAt).as("renewed twice the round trip before its end").isEqualTo(T + VALID - 6 * MS);
      for (int i = 0; i < 40; i++) {
        assertThat(limiter.tryAcquire(1, T + 3 * MS)).isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 1);
        admitted++;
      }
      assertThat(limiter.tryAcquire(1, T + 3 * MS)).as("the renewal follows the spent lease")
          .isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 2);
      admitted++;
      assertThat(leases.requests).as("no round trip while the renewal serves").hasSize(2);

      // At its renewal mark (4 ms: 6 ms before its end), the next call hands it to the thread.
      ticker.set(T + 4 * MS);
      assertThat(limiter.tryAcquire(1, T + 4 * MS)).isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 2);
      admitted++;
      assertThat(leases.awaitRequest(3).ahead()).isTrue();
      // Late: answered after the lease in hand ended (T + 10 ms) with 98 permits unspent.
      ticker.set(T + 11 * MS);
      leases.answer(2, 100);
      assertThat(guard.roundTrips.high()).isEqualTo(7 * MS);
      assertThat(limiter.currentLease().id).as("the late renewal replaces the ended lease").isEqualTo(3);
      assertThat(limiter.tryAcquire(1, T + 11 * MS)).isEqualTo(LeasedFlowLimiter.LEASE_TOKEN | 3);
      admitted++;

      guard.close();
      long granted = 300;
      assertThat(admitted + leases.givenBack.get()).as("every permit granted spent or given back, once")
          .isEqualTo(granted);
      assertThat(leases.givenBack.get()).isEqualTo(98 + 99);
    } finally {
      guard.close();
    }
  }

  @Test
  void theRenewalThreadEndsWhenTheEngineCloses() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    store.leasing = true;
    EngineClock clock = new EngineClock(Ticker.system(), Sleeper.system(), 1_000_000); // the engine's default
    ClusterGuard guard = new ClusterGuard(store,
        new ClusterOptions(Duration.ofSeconds(5), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64, true), clock);
    assertThat(guard.renewer).as("real time: renewals on a thread of their own").isNotNull();
    ClusterLimit limit = new ClusterLimit("r", "flow", 1_000_000_000, Duration.ofSeconds(1));
    long start = clock.read();
    ClusterFlowLimiter perCall = new ClusterFlowLimiter(guard, limit,
        new WindowLimiter(1_000_000_000L, 1_000_000_000, clock, start),
        count -> new WindowLimiter(1_000_000_000L, count, clock, start));
    LeasedFlowLimiter limiter = new LeasedFlowLimiter(guard, () -> store.leases(limit), perCall, 1_000_000_000, 1_000_000_000L);
    try {
      while (guard.renewer.thread() == null) { // counted by the store's requests, not by time
        assertThat(limiter.tryAcquire(8, clock.read())).isNotNegative();
      }
      Thread thread = guard.renewer.thread();
      assertThat(thread.getName()).isEqualTo(LeaseRenewer.THREAD_NAME);
      assertThat(thread.isDaemon()).isTrue();
      guard.close();
      clock.close();
      assertThat(thread.isAlive()).as("ended by the engine's close").isFalse();
      assertThat(guard.renewer.renew(limiter)).as("nothing handed over after the close").isFalse();
    } finally {
      guard.close();
    }
  }

  /**
   * A call that hands its renewal to the renewal thread allocates nothing per call: the hand-over
   * is one queue node per lease (the request, the futures and the lease are made on the renewal
   * thread, which answers here). The clock moves 100 ns a call, blocks grow to what 5 ms of calls
   * spend: 200,000 calls take a few dozen leases.
   */
  @Test
  void handingRenewalsToTheThreadAllocatesNothingPerCall() {
    FakeTicker ticker = new FakeTicker(T);
    ScriptedClusterStore store = new ScriptedClusterStore();
    store.leasing = true;
    ClusterGuard guard = new ClusterGuard(store,
        new ClusterOptions(Duration.ofSeconds(5), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64, true),
        new EngineClock(ticker, ticker), true);
    ClusterLimit limit = new ClusterLimit("r", "flow", 2_000_000_000, Duration.ofSeconds(1));
    EngineClock clock = guard.clock;
    ClusterFlowLimiter perCall = new ClusterFlowLimiter(guard, limit,
        new WindowLimiter(1_000_000_000L, 2_000_000_000, clock, T),
        count -> new WindowLimiter(1_000_000_000L, count, clock, T));
    LeasedFlowLimiter limiter = new LeasedFlowLimiter(guard, () -> store.leases(limit), perCall, 2_000_000_000,
        1_000_000_000L);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    try {
      int calls = 200_000;
      long least = Long.MAX_VALUE;
      for (int window = 0; window < 6 && least > 0; window++) {
        long start = threads.getThreadAllocatedBytes(self);
        for (int i = 0; i < calls; i++) {
          ticker.advanceNanos(100);
          limiter.tryAcquire(1, ticker.read());
        }
        long bytes = threads.getThreadAllocatedBytes(self) - start;
        if (window > 0) { // the first warms up
          least = Math.min(least, bytes);
        }
      }
      assertThat(guard.renewer.thread()).as("renewals went through the thread").isNotNull();
      assertThat(least).as("bytes in %d calls", calls).isLessThan(calls / 20);
      assertThat(store.leaseRequests.size()).as("lease round trips").isLessThan(6 * calls / 100);
    } finally {
      guard.close();
    }
  }

  /** Leases the test answers by hand: the first at once (when {@link #grantNow} is set), the others when told. */
  private static final class HandLeases implements ClusterLeases {
    final List<LeaseRequest> requests = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<ClusterLease>> futures = new CopyOnWriteArrayList<>();
    final AtomicLong givenBack = new AtomicLong();
    volatile long grantNow;
    private int receipts;

    @Override
    public CompletableFuture<ClusterLease> lease(LeaseRequest request) {
      if (request.settle() != null) {
        givenBack.addAndGet(request.unused());
      }
      CompletableFuture<ClusterLease> future = grantNow > 0 ? CompletableFuture.completedFuture(grant(grantNow))
          : new CompletableFuture<>();
      futures.add(future);
      requests.add(request); // last: the test waits for it
      return future;
    }

    synchronized ClusterLease grant(long permits) {
      return new ClusterLease(false, permits, VALID, 1_000_000, 0, 0, Long.MAX_VALUE, "lease-" + ++receipts);
    }

    void answer(int request, long permits) {
      futures.get(request).complete(grant(permits));
    }

    /**
     * Waits for the {@code n}th request, sent by the renewal thread, until the engine waits for its
     * answer (the guard's and the round trip's callbacks on the future), so that the test's answer
     * is installed on the test's thread. Bounded by the class's timeout.
     */
    LeaseRequest awaitRequest(int n) {
      while (requests.size() < n || futures.get(n - 1).getNumberOfDependents() < 2) {
        Thread.onSpinWait();
      }
      return requests.get(n - 1);
    }

    @Override
    public CompletableFuture<?> giveBack(ClusterLease lease, long unused) {
      givenBack.addAndGet(unused);
      return CompletableFuture.completedFuture(null);
    }
  }
}
