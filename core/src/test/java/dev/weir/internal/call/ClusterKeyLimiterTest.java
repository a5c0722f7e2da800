package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.internal.cluster.ClusterGuard;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The per-key limiters {@link Limiters#forParamValue(ParamFlowRule, Object, double)} makes, on the
 * driven ticker with a scripted store: which keys the store is asked to count (with each key's own
 * count, its exception's when it has one), and what decides when the store fails.
 */
class ClusterKeyLimiterTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final EngineClock clock = new EngineClock(ticker, ticker);
  private final ScriptedClusterStore store = new ScriptedClusterStore();

  private Limiters limiters(ClusterFallback fallback) {
    ClusterGuard guard = new ClusterGuard(store,
        new ClusterOptions(Duration.ofMillis(20), fallback, 3, Duration.ofSeconds(1), 64), clock);
    return new Limiters(clock, guard, null, 100, Weir.DEFAULT_MAX_KEY_BYTES_PER_RULE, new Overflow(100, 100));
  }

  private static final ParamFlowRule RULE = ParamFlowRule.builder("api").paramIndex(0).count(2)
      .duration(Duration.ofMinutes(1)).clusterMode(true).exceptions(List.of(new ParamFlowItem("vip", 5))).build();

  @Test
  void eachKeyIsCountedInTheStoreWithItsOwnCount() {
    Limiters limiters = limiters(ClusterFallback.DENY);
    FlowLimiter plain = limiters.forParamValue(RULE, "customer-1", 2);
    FlowLimiter vip = limiters.forParamValue(RULE, "vip", 5);
    assertThat(admitted(plain, 10)).isEqualTo(2);
    assertThat(admitted(vip, 10)).isEqualTo(5);
    assertThat(store.keyLimits).containsExactly(
        new ClusterKeyLimit("api", "param=0,60000ms", "customer-1", 2, Duration.ofMinutes(1), 0),
        new ClusterKeyLimit("api", "param=0,60000ms", "vip", 5, Duration.ofMinutes(1), 0));
    // Another instance's limiter of the same key shares the count.
    assertThat(admitted(limiters(ClusterFallback.DENY).forParamValue(RULE, "customer-1", 2), 10)).isZero();
  }

  @Test
  void aKeyExpressionRuleIsNamedByItsExpression() {
    ParamFlowRule keyed = RULE.toBuilder().key("#apiKey").build();
    limiters(ClusterFallback.DENY).forParamValue(keyed, "k", 2);
    assertThat(store.keyLimits.get(0).rule()).isEqualTo("key=#apiKey,60000ms");
  }

  @Test
  void aRuleNotInClusterModeOrAStoreWithoutKeysCountsLocally() {
    Limiters limiters = limiters(ClusterFallback.DENY);
    assertThat(admitted(limiters.forParamValue(RULE.toBuilder().clusterMode(false).build(), "k", 2), 10)).isEqualTo(2);
    assertThat(store.keyLimits).isEmpty();
    assertThat(store.acquires).hasValue(0);
  }

  @Test
  void whenTheStoreFailsTheKeysLocalBucketDecides() {
    store.mode = Mode.FAIL;
    FlowLimiter limiter = limiters(ClusterFallback.LOCAL).forParamValue(RULE, "customer-1", 2);
    assertThat(admitted(limiter, 10)).isEqualTo(2);
    ticker.advance(Duration.ofSeconds(30)); // one permit refilled: 2 a minute
    assertThat(admitted(limiter, 10)).isEqualTo(1);
  }

  @Test
  void theShareFallbackGivesEachInstanceItsShareOfTheKeysCount() {
    store.mode = Mode.FAIL;
    store.liveInstances = 2;
    FlowLimiter vip = limiters(ClusterFallback.SHARE).forParamValue(RULE, "vip", 5);
    assertThat(admitted(vip, 10)).isEqualTo(2); // floor(5 / 2)
  }

  private int admitted(FlowLimiter limiter, int attempts) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      if (limiter.tryAcquire(1, clock.read()) >= 0) {
        admitted++;
      }
    }
    return admitted;
  }
}
