package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import dev.weir.cluster.LeaseRequest;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leases ({@code weir.cluster.lease}) in the engine, on a driven ticker, with a scripted store that
 * counts grants without refill: what a call costs the store, how blocks grow, renewals ahead of time,
 * settlements, refusals kept locally, failures and fallbacks. The store's own side (windows, Redis)
 * is tested in the Spring module on a real redis-server.
 */
@Timeout(30)
class ClusterLeaseTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final ScriptedClusterStore store = new ScriptedClusterStore();
  private final List<Weir> engines = new ArrayList<>();

  ClusterLeaseTest() {
    store.leasing = true;
  }

  @AfterEach
  void close() {
    engines.forEach(Weir::close);
    store.hanging.forEach(future -> future.cancel(false));
    store.hangingLeases.forEach(future -> future.cancel(false));
  }

  private Weir engine(ClusterFallback fallback, FlowRule... rules) {
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), fallback, 3, Duration.ofSeconds(1), 64, true))
        .rules(RuleSet.of(rules)).build();
    engines.add(weir);
    return weir;
  }

  private static FlowRule rule(double count) {
    return FlowRule.builder("r").count(count).clusterMode(true).build();
  }

  /**
   * The calls a cold limiter decides per call before it leases: the 8th call within a lease's
   * validity turns it hot ({@code LeasedFlowLimiter.HOT_PERMITS}) and is the first to lease.
   */
  private static final int COLD_CALLS = 7;

  /** The calls admitted from leases: all admitted but those decided per call (answered, not leases). */
  private static long admittedFromLeases(ClusterStatus status) {
    return status.admitted() - (status.latencyCount() - status.leaseRequests());
  }

  /** What the store decided per call: its acquires that were no lease request. */
  private long perCallDecisions() {
    return store.acquires.get() - store.leaseRequests.size();
  }

  /** Calls {@code calls} times, {@code spacingNanos} apart on the ticker; returns how many were admitted. */
  private int calls(Weir weir, int calls, long spacingNanos) {
    int admitted = 0;
    for (int i = 0; i < calls; i++) {
      ticker.advanceNanos(spacingNanos);
      if (Calls.tryOnce(weir, "r") == null) {
        admitted++;
      }
    }
    return admitted;
  }

  @Test
  void blocksGrowWithTheRateOfCallsSoThatTheStoreIsAskedOncePerBlock() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    // 10^5 calls, 1 us apart: a lease is valid 10 ms (a hundredth of the interval), blocks are sized
    // to half of that at this rate (5000), and grow at most fourfold per lease from 1: 7 leases make
    // 5461 permits, 19 of 5000 the rest, and the last of them is renewed ahead once more.
    assertThat(calls(weir, 100_000, 1_000)).isEqualTo(100_000);

    List<Long> sizes = store.leaseRequests.stream().map(LeaseRequest::wanted).toList();
    assertThat(sizes.subList(0, 7)).containsExactly(1L, 4L, 16L, 64L, 256L, 1024L, 4096L);
    assertThat(sizes.subList(7, sizes.size())).containsOnly(5_000L);
    assertThat(store.leaseRequests).allSatisfy(request -> assertThat(request.validNanos())
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(10)));
    ClusterStatus status = weir.cluster();
    assertThat(status.admitted()).isEqualTo(100_000);
    assertThat(status.leaseRequests()).as("round trips for 10^5 calls").isEqualTo(27L)
        .isEqualTo(store.leaseRequests.size());
    assertThat(status.latencyCount()).as("the cold calls, then the leases")
        .isEqualTo(COLD_CALLS + status.leaseRequests());
    // What the store counted is what was admitted, plus what the open lease still holds.
    assertThat(store.counted("r") - status.admitted()).isEqualTo(status.leasedPermits() - status.returnedPermits()
        - admittedFromLeases(status));
  }

  @Test
  void aBusyLeaseIsRenewedAheadAndTheRenewalFollowsOnceTheCurrentLeaseIsSpent() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    calls(weir, 2_000, 1_000);
    // From the lease of 4 on, each is renewed ahead, at a quarter left: the calls never wait for a
    // round trip, and the renewal is spent only once the lease it follows is, to the last permit.
    assertThat(store.leaseRequests).extracting(LeaseRequest::ahead).containsExactly(false, false, true, true, true,
        true, true);
    assertThat(store.leaseRequests).allSatisfy(request -> assertThat(request.settle()).isNull());
    ClusterStatus status = weir.cluster();
    assertThat(status.returnedPermits()).isZero();
    assertThat(status.admitted()).isEqualTo(2_000);
    assertThat(status.leasedPermits()).isEqualTo(1 + 4 + 16 + 64 + 256 + 1024 + 4096);
  }

  @Test
  void leasesEndAtTheirValidityAndWhatTheyDidNotSpendIsSettledOrGivenBack() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    calls(weir, 100, 1_000); // 7 calls per call, then leases of 1, 4, 16, 64 and one of 256 renewed ahead
    ClusterStatus status = weir.cluster();
    long held = status.leasedPermits() - status.returnedPermits() - admittedFromLeases(status);
    assertThat(held).isPositive();
    int before = store.leaseRequests.size();
    ticker.advance(Duration.ofMillis(11)); // past the 10 ms validity of every lease held
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    assertThat(store.leaseRequests).hasSize(before + 1);
    LeaseRequest renewal = store.leaseRequests.get(before);
    assertThat(renewal.ahead()).isFalse();
    // Both ended leases held permits: settled with the request or given back (at once, or by the
    // engine's lease timer if it visited first).
    long givenBack = store.giveBacks.stream().mapToLong(java.util.Map.Entry::getValue).sum();
    assertThat(renewal.unused() + givenBack).isEqualTo(held);
    assertThat(status.returnedPermits()).isEqualTo(held);
    assertThat(renewal.wanted()).as("sized by what was spent since the last request, over 11 ms").isLessThan(64);
    assertThat(store.counted("r")).isEqualTo(status.admitted() + renewal.wanted() - 1);
  }

  @Test
  void aRefusedLeaseRefusesLocallyUntilTheStoresRetryAfterOrOneHundredMillisecondsIfSooner() {
    Weir weir = engine(ClusterFallback.ALLOW, rule(10));
    assertThat(calls(weir, 10, 1_000_000)).isEqualTo(10);
    int asked = store.leaseRequests.size();

    BlockException refused = Calls.tryOnce(weir, "r");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(250));
    assertThat(store.leaseRequests).hasSize(asked + 1);
    assertThat(store.leaseRequests.get(asked).minimum()).isEqualTo(1);

    // 49 more calls within 98 ms: refused here, the store not asked, each told the store's retry-after.
    ticker.advance(Duration.ofMillis(2));
    assertThat(Calls.tryOnce(weir, "r").retryAfter()).isEqualTo(Duration.ofMillis(248));
    assertThat(calls(weir, 48, 2_000_000)).isZero();
    assertThat(store.leaseRequests).hasSize(asked + 1);
    ClusterStatus status = weir.cluster();
    assertThat(status.blocked()).isEqualTo(50);
    assertThat(status.fallbacks()).isZero();

    // 100 ms after the refusal, though the store said 250: asked again (a refusal is kept at most a
    // lease's validity, at least 100 ms, so that a store that lost its counts is asked soon).
    ticker.advance(Duration.ofMillis(2));
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    assertThat(store.leaseRequests).hasSize(asked + 2);
    ticker.advance(Duration.ofMillis(99));
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    assertThat(store.leaseRequests).hasSize(asked + 2);
  }

  @Test
  void anIdleInstanceGivesBackWhatItsLeaseDidNotSpend() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    calls(weir, 100, 1_000);
    long leased = weir.cluster().leasedPermits();
    long admitted = weir.cluster().admitted();
    long fromLeases = admittedFromLeases(weir.cluster());
    assertThat(leased).isGreaterThan(fromLeases);
    ticker.advance(Duration.ofMillis(11)); // the lease has ended; no call comes
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.counted("r") != admitted && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // the engine's lease timer visits the limiter at the lease's end
    }
    assertThat(store.counted("r")).as("the store holds exactly what was admitted").isEqualTo(admitted);
    assertThat(store.giveBacks).as("given back by the lease timer").isNotEmpty();
    long givenBack = store.giveBacks.stream().mapToLong(java.util.Map.Entry::getValue).sum();
    long settled = store.leaseRequests.stream().mapToLong(LeaseRequest::unused).sum();
    assertThat(givenBack + settled).isEqualTo(leased - fromLeases);
    assertThat(weir.cluster().returnedPermits()).isEqualTo(leased - fromLeases);
  }

  @Test
  void closingTheEngineGivesBackItsLeases() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    calls(weir, 100, 1_000);
    long admitted = weir.cluster().admitted();
    weir.close();
    assertThat(store.counted("r")).isEqualTo(admitted);
  }

  @Test
  void aPermitRefundedByALaterRuleGoesBackToTheLease() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000),
        FlowRule.builder("r").count(0).build()); // a local rule that refuses everything
    for (int i = 0; i < 50; i++) {
      ticker.advanceNanos(1_000);
      assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    }
    // Each call took a permit from the lease and gave it back: one lease of one permit serves all.
    assertThat(store.leaseRequests).hasSize(1);
    assertThat(weir.cluster().admitted()).isEqualTo(50); // admitted by the cluster rule, refused by the next
  }

  @Test
  void rulesAreLeasedOneByOneAndARefusalByTheSecondLeavesTheFirstsPermitInItsLease() {
    store.combining = true;
    FlowRule perDay = FlowRule.builder("r").count(3).interval(Duration.ofDays(1)).clusterMode(true).build();
    Weir weir = engine(ClusterFallback.DENY, rule(1_000), perDay);
    assertThat(calls(weir, 10, 1_000_000)).isEqualTo(3);
    assertThat(store.combined).as("leased rules are not combined").isEmpty();
    assertThat(store.counted("r", Duration.ofDays(1))).isEqualTo(3);
    // The per-second rule's lease keeps the permits the per-day refusals gave back.
    assertThat(store.counted("r") - store.giveBacks.stream().mapToLong(java.util.Map.Entry::getValue).sum())
        .isLessThanOrEqualTo(3 + 1_000 / 16);
  }

  @Test
  void whenTheStoreFailsCallsFallBackAndTheBreakerCountsOneFailurePerRoundTrip() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    assertThat(calls(weir, 8, 1_000)).as("hot: the 8th call leased one permit").isEqualTo(8);
    assertThat(store.leaseRequests).hasSize(1);
    store.mode = Mode.FAIL;
    assertThat(calls(weir, 20, 1_000)).as("deny decides").isZero();
    ClusterStatus status = weir.cluster();
    assertThat(store.leaseRequests).as("3 failed lease round trips open the breaker").hasSize(4);
    assertThat(status.fallbacks(FallbackReason.ERROR)).isEqualTo(3);
    assertThat(status.fallbacks(FallbackReason.BREAKER_OPEN)).isEqualTo(17);
    assertThat(status.breakerState()).isEqualTo(CircuitState.OPEN);

    store.mode = Mode.COUNT;
    ticker.advance(Duration.ofSeconds(1)); // the breaker's open duration: the next call probes
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    assertThat(status.breakerState()).isEqualTo(CircuitState.CLOSED);
    assertThat(status.admitted()).isEqualTo(9);
  }

  @Test
  void aLeaseHeldWhenTheStoreFailsIsSpentToItsEnd() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    calls(weir, 100, 1_000); // a lease of 256 with some spent
    long left = weir.cluster().leasedPermits() - weir.cluster().returnedPermits() - admittedFromLeases(weir.cluster());
    store.mode = Mode.FAIL;
    int asked = store.leaseRequests.size();
    // The lease is renewed ahead at a quarter left: that round trip fails once; the rest is spent.
    long admitted = calls(weir, (int) left, 1_000);
    assertThat(admitted).isEqualTo(left);
    assertThat(store.leaseRequests.size() - asked).as("the failed renewal ahead").isLessThanOrEqualTo(1);
    assertThat(weir.cluster().fallbacks()).isZero();
    assertThat(Calls.tryOnce(weir, "r")).as("then deny decides").isInstanceOf(FlowException.class);
  }

  @Test
  void aRoundTripPastTheDeadlineFallsBackAndALateGrantIsGivenBack() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    assertThat(calls(weir, 8, 1_000)).as("hot: the 8th call leased one permit").isEqualTo(8);
    store.mode = Mode.HANG;
    ticker.advanceNanos(1_000);
    long start = System.nanoTime();
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
    ClusterStatus status = weir.cluster();
    assertThat(status.fallbacks(FallbackReason.TIMEOUT)).isEqualTo(1);
    CompletableFuture<ClusterLease> hung = store.hangingLeases.poll();
    assertThat(hung).isNotNull();
    assertThat(hung).as("cancelled at the deadline").isCancelled();
  }

  /**
   * Hot and cold: a limiter leases only while a lease would serve several calls. Calls 5 ms apart
   * (two per 10 ms validity) are decided per call; a burst 1 us apart turns it hot at its 8th call
   * within a validity, and it leases; calls 5 ms apart again turn it cold at the first lease request
   * that measures their rate, and it is decided per call again. Every call is admitted, the store
   * counts each exactly once, and closing gives back what the last lease held.
   */
  @Test
  void aLimiterLeasesOnlyWhileItIsHotAndIsDecidedPerCallWhileCold() {
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    assertThat(calls(weir, 50, 5_000_000)).isEqualTo(50);
    assertThat(store.leaseRequests).as("cold: no lease").isEmpty();
    assertThat(perCallDecisions()).as("cold: one decision per call").isEqualTo(50);

    // The span that holds the 50th call holds one permit (the spans are 10 ms, calls 5 ms apart):
    // the 7th call of the burst makes 8, the first to lease.
    assertThat(calls(weir, 10_000, 1_000)).isEqualTo(10_000);
    assertThat(perCallDecisions() - 50).as("the burst's calls decided per call").isEqualTo(6);
    int leasesInBurst = store.leaseRequests.size();
    assertThat(leasesInBurst).as("lease round trips for 9994 calls").isBetween(5, 15);

    assertThat(calls(weir, 100, 5_000_000)).isEqualTo(100);
    int leasesAfter = store.leaseRequests.size();
    assertThat(leasesAfter - leasesInBurst).as("lease round trips until the rate was measured low").isBetween(1, 3);
    long decided = perCallDecisions();
    assertThat(calls(weir, 100, 5_000_000)).isEqualTo(100);
    assertThat(store.leaseRequests).as("cold again: no lease").hasSize(leasesAfter);
    assertThat(perCallDecisions() - decided).as("cold again: one decision per call").isEqualTo(100);

    weir.close();
    assertThat(store.counted("r")).as("counted once each, the last lease's rest given back").isEqualTo(10_250);
  }

  /**
   * A refusal per call turns a cold limiter hot at once, whatever its rate: the limit is short, and
   * leased its refusals stay local (the store not asked again until the retry-after, or 100 ms) and
   * its requests carry its demand for the fair shares. It stays hot while the store refuses, though
   * its rate is low.
   */
  @Test
  void aColdLimiterThatTheStoreRefusesTurnsHotAndStaysHotWhileRefused() {
    Weir weir = engine(ClusterFallback.DENY, rule(3));
    assertThat(calls(weir, 4, 20_000_000)).as("cold, per call: 3 of 4").isEqualTo(3);
    assertThat(store.leaseRequests).isEmpty();
    assertThat(perCallDecisions()).isEqualTo(4);
    // The next call is hot: its lease is refused; the calls after it are refused here, for 100 ms.
    assertThat(calls(weir, 5, 20_000_000)).isZero();
    assertThat(store.leaseRequests).hasSize(1);
    assertThat(perCallDecisions()).as("no per-call decision after the refusal").isEqualTo(4);
    // 100 ms on, at 20 ms a call: still hot (the store refused), asked again by lease, not per call.
    assertThat(calls(weir, 5, 20_000_000)).isZero();
    assertThat(store.leaseRequests).hasSize(2);
    assertThat(perCallDecisions()).isEqualTo(4);
  }

  /**
   * Deterministic interleaving: a call reads the clock and is held while the others turn the
   * limiter hot and spend leases; then it reaches the limiter with its old reading. The store's
   * count (no refill) is the bound: of 2100 calls and the late one, exactly 1600 are admitted, and
   * the store counts exactly what was admitted once the engine has given back its leases.
   */
  @Test
  void aLateReadingFromBeforeTheLimiterTurnedHotIsDecidedWithinTheStoresCount() {
    HoldingSlot holding = new HoldingSlot();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).slot(holding)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64,
            true))
        .rules(RuleSet.of(rule(1_600))).build();
    engines.add(weir);
    ticker.advanceNanos(1_000);
    HoldingSlot.Held<Boolean> late = holding.hold(() -> Calls.tryOnce(weir, "r") == null);
    int admitted = calls(weir, 1_000, 1_000);
    assertThat(store.leaseRequests).as("hot meanwhile").isNotEmpty();
    admitted += late.release() ? 1 : 0;
    admitted += calls(weir, 1_000, 1_000);
    // The store (no refill) refused a block of 100 with a retry-after of 250 ms: after the 100 ms a
    // refusal is kept here, the next request asks for what is left.
    ticker.advance(Duration.ofMillis(100));
    admitted += calls(weir, 100, 1_000);
    assertThat(admitted).isEqualTo(1_600);
    weir.close();
    assertThat(store.counted("r")).isEqualTo(1_600);
  }

  /**
   * A lease spent to its last permit before its renewal came sizes the next one at least as large,
   * though the calls that waited meanwhile lower the measured rate: otherwise the blocks shrink, run
   * out sooner, and the instance waits more (the spiral measured at 64 threads). Renewals ahead are
   * answered "ask later" here, so that the lease runs out; then the calls stall 4 ms.
   */
  @Test
  void aLeaseSpentToItsEndBeforeItsRenewalSizesTheNextAtLeastAsLarge() {
    store.askLaterAhead = true;
    Weir weir = engine(ClusterFallback.DENY, rule(1_000_000));
    assertThat(calls(weir, 30_000, 1_000)).isEqualTo(30_000);
    ClusterStatus status = weir.cluster();
    for (int i = 0; i < 10_000 && status.leasedPermits() - status.returnedPermits() > admittedFromLeases(status); i++) {
      assertThat(calls(weir, 1, 1_000)).isEqualTo(1);
    }
    assertThat(status.leasedPermits() - status.returnedPermits()).as("the lease spent to its end")
        .isEqualTo(admittedFromLeases(status));
    long spent = store.leaseRequests.stream().filter(request -> !request.ahead()).reduce((a, b) -> b).orElseThrow()
        .wanted();
    assertThat(spent).as("the blocks grew to about half a validity at 1 call per us").isBetween(4_900L, 5_000L);
    int asked = store.leaseRequests.size();
    ticker.advance(Duration.ofMillis(4));
    assertThat(calls(weir, 1, 1_000)).isEqualTo(1);
    LeaseRequest next = store.leaseRequests.get(asked);
    assertThat(next.ahead()).isFalse();
    // Measured, the rate says about 2,000 (the permits spent since the last request, over the 4 ms
    // stall and the time before); the lease that ran out says about 5,000.
    assertThat(next.wanted()).as("the next block, after a lease of %s ran out", spent).isGreaterThanOrEqualTo(spent);
  }

  /**
   * A daily quota's blocks are capped at {@code floor(count * 10 s / 1 d)}: what an instance that
   * dies strands stays counted up to a day, so it must be small (docs/cluster-leases.md, "An instance
   * that dies"). At 1 call per us a block would otherwise grow to a sixteenth of the count (62,500)
   * and beyond; here no lease exceeds 115 permits, and a call of more permits than a block is
   * decided by the store alone, never leased.
   */
  @Test
  void aDailyQuotasBlocksAreCappedSoThatADyingInstanceStrandsLittle() {
    FlowRule daily = FlowRule.builder("r").count(1_000_000).interval(Duration.ofDays(1)).clusterMode(true).build();
    Weir weir = engine(ClusterFallback.DENY, daily);
    long block = 1_000_000L * 10 / 86_400; // 115
    for (int i = 0; i < 20_000; i++) {
      ticker.advanceNanos(1_000);
      assertThat(Calls.tryOnce(weir, "r")).isNull();
    }
    List<Long> sizes = store.leaseRequests.stream().map(LeaseRequest::wanted).toList();
    assertThat(sizes.subList(0, 4)).containsExactly(1L, 4L, 16L, 64L);
    assertThat(sizes.subList(4, sizes.size())).as("every later block is the cap").containsOnly(block);
    ClusterStatus status = weir.cluster();
    assertThat(status.admitted()).isEqualTo(20_000);
    // At most the lease in hand, the one renewed ahead and none in flight: two blocks unspent.
    assertThat(status.leasedPermits() - status.returnedPermits() - admittedFromLeases(status))
        .isBetween(0L, 2 * block);

    int asked = store.leaseRequests.size();
    int decided = store.acquires.get();
    ticker.advanceNanos(1_000);
    try (Entry entry = weir.entry("r", EntryType.IN, (int) block + 1)) {
      // admitted by the store alone
    }
    assertThat(store.leaseRequests).as("a call of more than a block is not leased").hasSize(asked);
    assertThat(store.acquires.get()).as("it is decided by the store alone").isEqualTo(decided + 1);
    assertThat(weir.cluster().admitted()).isEqualTo(20_001);
  }

  @Test
  void aKeyOfAClusterParamFlowRuleIsLeased() {
    ParamFlowRule perKey = ParamFlowRule.builder("k").paramIndex(0).count(1_000_000).clusterMode(true).build();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64,
            true))
        .rules(RuleSet.of(perKey)).build();
    engines.add(weir);
    for (int i = 0; i < 1_000; i++) {
      ticker.advanceNanos(1_000);
      try (Entry entry = weir.entry("k", EntryType.OUT, 1, "customer-7")) {
        // admitted
      }
    }
    assertThat(store.keyLimits).hasSize(2).containsOnly(store.keyLimits.get(0)); // its counter, then its leases
    assertThat(weir.cluster().admitted()).isEqualTo(1_000);
    assertThat(store.leaseRequests.size()).as("round trips for 1000 calls of one key").isLessThan(20);
  }
}
