package dev.weir.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Calls;
import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The {@code share} fallback on the driven ticker: while the store fails, each instance applies
 * {@code max(1, floor(count / n))}, {@code n} the live instances it last learned, to the same rule.
 */
class ClusterShareTest {

  private static final FlowRule TEN = FlowRule.builder("r").count(10).clusterMode(true).build();

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);

  private Weir instance(ScriptedClusterStore store, FlowRule... rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), ClusterFallback.SHARE, 3, Duration.ofSeconds(1), 64))
        .rules(RuleSet.of(rules)).build();
  }

  private static ScriptedClusterStore failing(int liveInstances) {
    ScriptedClusterStore store = new ScriptedClusterStore();
    store.mode = Mode.FAIL;
    store.liveInstances = liveInstances;
    return store;
  }

  @Test
  void eachInstanceAppliesItsShareOfTheCountPerInterval() {
    Weir weir = instance(failing(3), TEN);
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3); // floor(10 / 3)
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3);
    assertThat(weir.cluster().liveInstances()).isEqualTo(3);
  }

  @Test
  void twoInstancesThatSeeEachOtherAdmitTheCountTogetherAndAStaleViewAdmitsMore() {
    ScriptedClusterStore store = failing(2);
    Weir a = instance(store, TEN);
    Weir b = instance(store, TEN);
    assertThat(Calls.admitted(a, "r", 10) + Calls.admitted(b, "r", 10)).isEqualTo(10);
    // A third instance that the other two have not yet seen: the documented worst case, n_seen = 2.
    Weir c = instance(store, TEN);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(a, "r", 10) + Calls.admitted(b, "r", 10) + Calls.admitted(c, "r", 10)).isEqualTo(15);
  }

  @Test
  void aChangedInstanceCountTakesEffectWithinTheCurrentWindow() {
    ScriptedClusterStore store = failing(5);
    Weir weir = instance(store, TEN);
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(2);
    store.liveInstances = 2; // learned from a heartbeat that got through
    // The window keeps the 2 admitted: 3 more make this instance's 5.
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3);
  }

  @Test
  void roundingKeepsAtLeastOnePermitAndZeroStaysZeroAndUnknownIsTheWholeCount() {
    assertThat(Calls.admitted(instance(failing(5), FlowRule.builder("r").count(2).clusterMode(true).build()), "r", 5))
        .isEqualTo(1);
    assertThat(Calls.admitted(instance(failing(5), FlowRule.builder("r").count(0).clusterMode(true).build()), "r", 5))
        .isZero();
    assertThat(Calls.admitted(instance(failing(0), TEN), "r", 20)).isEqualTo(10);
    assertThat(ClusterFlowLimiter.shareOf(10, 3)).isEqualTo(3);
    assertThat(ClusterFlowLimiter.shareOf(0.5, 3)).isZero();
  }

  @Test
  void anExactRuleSharesWithAnExactLocalWindow() {
    FlowRule exact = TEN.toBuilder().count(9).exact(true).build();
    Weir weir = instance(failing(3), exact);
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3);
    ticker.advance(Duration.ofMillis(999));
    assertThat(Calls.admitted(weir, "r", 10)).isZero();
    ticker.advance(Duration.ofMillis(1));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3);
  }

  @Test
  void severalRulesDecidedTogetherEachFallBackToTheirShare() {
    ScriptedClusterStore store = failing(2);
    store.combining = true;
    FlowRule perMinute = FlowRule.builder("r").count(8).interval(Duration.ofMinutes(1)).clusterMode(true).build();
    Weir weir = instance(store, TEN, perMinute);
    assertThat(store.combined).hasSize(1);
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(4); // the per-minute share, floor(8 / 2)
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(weir, "r", 10)).isZero();
  }
}
