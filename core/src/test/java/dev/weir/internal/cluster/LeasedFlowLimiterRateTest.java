package dev.weir.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import dev.weir.cluster.LeaseRequest;
import dev.weir.internal.limit.WindowLimiter;
import dev.weir.internal.time.EngineClock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rate a {@link LeasedFlowLimiter} measures at a lease request, when permits counted as spent at
 * one request were refunded into the open lease before the next (a later rule refused the call).
 * Found by {@code LeaseStress} (benchmarks/jcstress): the rate came out negative, so did the
 * request's demand, and the request could not be made ({@link LeaseRequest} rejects a negative
 * demand): the round trip counted as a store error towards the breaker and the call fell back.
 */
@Timeout(30)
class LeasedFlowLimiterRateTest {

  private static final long T = 3_600_000_000_000_000L;
  private final FakeTicker ticker = new FakeTicker(T);
  private final ScriptedClusterStore store = new ScriptedClusterStore();
  private final ClusterGuard guard = new ClusterGuard(store,
      new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64, true),
      new EngineClock(ticker, ticker));

  @AfterEach
  void close() {
    guard.close();
  }

  @Test
  void permitsRefundedAfterARequestCountedThemNeverMakeANegativeDemand() {
    store.leasing = true;
    store.askLaterAhead = true;
    ClusterLimit limit = new ClusterLimit("r", "flow", 1000, Duration.ofSeconds(1));
    EngineClock clock = guard.clock;
    ClusterFlowLimiter perCall = new ClusterFlowLimiter(guard, limit, new WindowLimiter(1_000_000_000L, 1000, clock, T),
        count -> new WindowLimiter(1_000_000_000L, count, clock, T));
    LeasedFlowLimiter limiter = new LeasedFlowLimiter(guard, () -> store.leases(limit), perCall, 1000, 1_000_000_000L);

    assertThat(ClusterFlowLimiter.storeAdmitted(limiter.tryAcquire(6, T))).as("cold: decided per call").isTrue();
    // 12 permits in the span: hot. Leases 6 and spends them; its renewal ahead (sent at the spend,
    // which it counts as spent) is answered "ask later". Then a later rule refuses the call.
    long token = limiter.tryAcquire(6, T);
    assertThat(token & LeasedFlowLimiter.LEASE_TOKEN).isNotZero();
    limiter.refund(6, token);
    assertThat(limiter.leftInLease()).isEqualTo(6);

    // The lease ends unspent; the next call's request measures what was spent since the renewal ahead.
    long later = T + TimeUnit.MILLISECONDS.toNanos(11);
    ticker.set(later);
    assertThat(limiter.tryAcquire(1, later)).as("admitted from a new lease").isNotNegative();

    assertThat(store.leaseRequests).hasSize(3);
    LeaseRequest last = store.leaseRequests.get(2);
    assertThat(last.demand()).isZero();
    assertThat(last.unused()).as("the ended lease settled with the request").isEqualTo(6);
    assertThat(guard.fallbacks(FallbackReason.ERROR)).isZero();
    assertThat(guard.lastFailure()).isNull();
  }
}
