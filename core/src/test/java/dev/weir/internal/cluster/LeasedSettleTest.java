package dev.weir.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.LeaseRequest;
import dev.weir.internal.limit.WindowLimiter;
import dev.weir.internal.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Settling calls spent from a lease ({@link LeasedFlowLimiter#settle}), on the driven ticker with a
 * scripted store: a refund returns permits to the call's lease, a debt takes them from the leases in
 * hand and, beyond them, from the next lease before any call spends it; no settlement sends a
 * command of its own, and the net reaches the store with the lease's settlement.
 */
@Timeout(30)
class LeasedSettleTest {

  private static final long T = 3_600_000_000_000_000L;
  private final FakeTicker ticker = new FakeTicker(T);
  private final ScriptedClusterStore store = new ScriptedClusterStore();
  private final ClusterGuard guard = new ClusterGuard(store,
      new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64, true),
      new EngineClock(ticker, ticker));
  private final ClusterLimit limit = new ClusterLimit("r", "flow", 1000, Duration.ofSeconds(1));

  LeasedSettleTest() {
    store.leasing = true;
    store.askLaterAhead = true; // no renewal ahead: each lease request below is one a test names
  }

  @AfterEach
  void close() {
    guard.close();
  }

  private LeasedFlowLimiter limiter() {
    return limiter(limit);
  }

  private LeasedFlowLimiter limiter(ClusterLimit limit) {
    EngineClock clock = guard.clock;
    ClusterFlowLimiter perCall = new ClusterFlowLimiter(guard, limit, new WindowLimiter(1_000_000_000L, 1000, clock, T),
        count -> new WindowLimiter(1_000_000_000L, count, clock, T));
    return new LeasedFlowLimiter(guard, () -> store.leases(limit), perCall, 1000, 1_000_000_000L);
  }

  /** A hot limiter holding a lease of 6 with 6 left: a call of 6 per call, then one leased and refunded. */
  private long hotWithLease(LeasedFlowLimiter limiter) {
    assertThat(ClusterFlowLimiter.storeAdmitted(limiter.tryAcquire(6, T))).as("cold: decided per call").isTrue();
    long token = limiter.tryAcquire(6, T);
    assertThat(token & LeasedFlowLimiter.LEASE_TOKEN).as("leased").isNotZero();
    return token;
  }

  @Test
  void aRefundReturnsPermitsToTheCallsLeaseWithNoCommand() {
    LeasedFlowLimiter limiter = limiter();
    long token = hotWithLease(limiter);
    assertThat(limiter.leftInLease()).isZero();
    int asked = store.acquires.get();
    limiter.settle(-4, token, T);
    assertThat(limiter.leftInLease()).isEqualTo(4);
    assertThat(store.acquires).as("no command").hasValue(asked);
    assertThat(store.settlements).isEmpty();
    assertThat(limiter.tryAcquire(4, T)).as("spent again from the lease").isNotNegative();
  }

  @Test
  void aRefundNeverMakesALeaseHoldMoreThanItWasGranted() {
    LeasedFlowLimiter limiter = limiter();
    long token = hotWithLease(limiter);
    limiter.settle(-6, token, T);
    limiter.settle(-6, token, T); // a settle the engine never sends twice; bounded all the same
    assertThat(limiter.leftInLease()).isEqualTo(limiter.currentLease().size);
  }

  /**
   * A debt beyond the lease in hand: the next leases pay it before any call spends from them, and
   * what they cannot pay is charged in the store (one settlement) before a call is decided per call.
   */
  @Test
  void aDebtBeyondTheLeaseIsPaidByTheNextLeasesOrChargedBeforeACallDecidedPerCall() {
    LeasedFlowLimiter limiter = limiter(limit);
    long token = hotWithLease(limiter);
    limiter.settle(-6, token, T); // 6 left
    long granted = limiter.currentLease().size;
    limiter.settle(granted + 5, token, T);
    assertThat(limiter.leftInLease()).isZero();
    assertThat(limiter.owed()).isEqualTo(5);
    assertThat(store.settlements).as("no command of its own").isEmpty();

    long later = T + TimeUnit.MILLISECONDS.toNanos(11); // the lease has ended
    ticker.set(later);
    int requests = store.leaseRequests.size();
    long admitted = limiter.tryAcquire(1, later);
    assertThat(admitted).isNotNegative();
    List<LeaseRequest> after = store.leaseRequests.subList(requests, store.leaseRequests.size());
    long paidByLeases = after.stream().mapToLong(LeaseRequest::wanted).sum(); // the store grants what is wanted here
    assertThat(after).as("each granted lease went to the debt first").allSatisfy(
        request -> assertThat(request.unused()).isZero());
    long charged = store.settlements.stream().mapToLong(settlement -> settlement[1]).sum();
    assertThat(paidByLeases + charged).as("the debt of 5, paid in full").isGreaterThanOrEqualTo(5);
    assertThat(limiter.owed()).isZero();
  }

  /** A debt of Long.MAX_VALUE: capped at the limit's count (a window holds no more), nothing overflows. */
  @Test
  void aDebtOfLongMaxValueIsCappedAtTheCount() {
    LeasedFlowLimiter limiter = limiter();
    long token = hotWithLease(limiter);
    limiter.settle(Long.MAX_VALUE, token, T);
    limiter.settle(Long.MAX_VALUE, token, T);
    assertThat(limiter.owed()).isEqualTo(1000);
    assertThat(limiter.leftInLease()).isZero();
  }

  @Test
  void aCallDecidedPerCallSettlesInTheStore() {
    LeasedFlowLimiter limiter = limiter();
    long token = limiter.tryAcquire(6, T);
    assertThat(ClusterFlowLimiter.storeAdmitted(token)).isTrue();
    limiter.settle(-5, token, T);
    assertThat(store.settlements).hasSize(1);
    assertThat(store.settlements.get(0)[1]).isEqualTo(-5);
  }

  /**
   * Refunds and debts of the calls of one lease racing from real threads, each thread settling one
   * call: whatever the interleaving, the lease never goes below zero nor above its grant, and what
   * it has left less what is owed is exactly what the settlements added ({@code -sum(delta)}).
   */
  @Test
  void settlesRacingFromThreadsKeepTheLeaseAccounted() throws Exception {
    for (int round = 0; round < 100; round++) {
      LeasedFlowLimiter limiter = limiter(new ClusterLimit("r" + round, "flow", 1000, Duration.ofSeconds(1)));
      long first = hotWithLease(limiter);
      limiter.settle(-6, first, T);
      long size = limiter.currentLease().size;
      long[] tokens = new long[(int) size];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = limiter.tryAcquire(1, T);
        assertThat(tokens[i] & LeasedFlowLimiter.LEASE_TOKEN).isNotZero();
      }
      assertThat(limiter.leftInLease()).isZero();
      CyclicBarrier start = new CyclicBarrier(tokens.length);
      List<Thread> running = new ArrayList<>();
      long sum = 0;
      for (int i = 0; i < tokens.length; i++) {
        long token = tokens[i];
        long delta = i % 2 == 0 ? -1 : 2;
        sum += delta;
        Thread thread = new Thread(() -> {
          try {
            start.await();
            limiter.settle(delta, token, T);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
        thread.start();
        running.add(thread);
      }
      for (Thread thread : running) {
        thread.join();
      }
      long left = limiter.leftInLease();
      assertThat(left).isBetween(0L, size);
      assertThat(left - limiter.owed()).as("round %d", round).isEqualTo(-sum);
    }
  }
}
