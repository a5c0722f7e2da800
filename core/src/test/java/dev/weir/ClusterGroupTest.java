package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several cluster-mode rules of one resource decided by one store round trip, all or nothing, on
 * the driven ticker with a scripted store (which keeps an in-memory count per limit, all or nothing
 * under one lock, as the Redis script does atomically).
 */
class ClusterGroupTest {

  private static final FlowRule PER_SECOND = FlowRule.builder("r").count(5).clusterMode(true).build();
  private static final FlowRule PER_MINUTE =
      FlowRule.builder("r").count(3).interval(Duration.ofMinutes(1)).clusterMode(true).build();

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final ScriptedClusterStore store = new ScriptedClusterStore();

  @AfterEach
  void completeHanging() {
    store.hanging.forEach(future -> future.complete(new ClusterDecision(true, 0, 0)));
  }

  private Weir engine(ClusterFallback fallback, FlowRule... rules) {
    store.combining = true;
    return Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), fallback, 3, Duration.ofSeconds(1), 64))
        .rules(RuleSet.of(rules)).build();
  }

  @Test
  void oneRoundTripPerCallAndARefusalByTheSecondRuleTakesNothingFromTheFirst() {
    Weir weir = engine(ClusterFallback.DENY, PER_SECOND, PER_MINUTE);
    assertThat(store.combined).containsExactly(List.of(
        new ClusterLimit("r", "all", 5, Duration.ofSeconds(1)), new ClusterLimit("r", "all", 3, Duration.ofMinutes(1))));
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(3);
    BlockException refused = Calls.tryOnce(weir, "r");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.rule()).as("the rule that did not fit").isEqualTo(PER_MINUTE);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(250));
    assertThat(store.counted("r", Duration.ofSeconds(1))).as("the per-second count: admitted calls only").isEqualTo(3);
    assertThat(store.counted("r", Duration.ofMinutes(1))).isEqualTo(3);
    assertThat(store.acquires).as("one round trip per call").hasValue(6);
    assertThat(store.combinedAcquires).hasValue(6);
    assertThat(weir.cluster().admitted()).isEqualTo(3);
    assertThat(weir.cluster().blocked()).isEqualTo(3);
  }

  @Test
  void aRefusalByTheFirstRuleNamesIt() {
    FlowRule none = FlowRule.builder("r").count(0).clusterMode(true).build();
    Weir weir = engine(ClusterFallback.DENY, none, PER_MINUTE);
    assertThat(Calls.tryOnce(weir, "r").rule()).isEqualTo(none);
    assertThat(store.counted("r", Duration.ofMinutes(1))).isZero();
  }

  @Test
  void onlyRulesEveryCallMeetsAreCombinedAndOneSuchRuleIsDecidedAlone() {
    FlowRule forOneOrigin = PER_SECOND.toBuilder().limitApp("appA").build();
    FlowRule shadow = PER_MINUTE.toBuilder().shadow(true).build();
    Weir weir = engine(ClusterFallback.DENY, forOneOrigin, shadow,
        FlowRule.builder("r").count(9).interval(Duration.ofHours(1)).clusterMode(true).build());
    assertThat(store.combined).isEmpty();
    assertThat(Calls.admitted(weir, "r", 1)).isEqualTo(1);
    assertThat(store.combinedAcquires).hasValue(0);
    assertThat(store.acquires).as("the shadow rule and the hourly one, each alone").hasValue(2);
  }

  @Test
  void aStoreThatCannotCombineIsAskedRuleByRule() {
    Weir weir = engine(ClusterFallback.DENY, PER_SECOND, PER_MINUTE);
    store.combining = false; // read when the rules were loaded: combined already
    assertThat(store.combined).hasSize(1);
    ScriptedClusterStore plain = new ScriptedClusterStore();
    Weir alone = Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(plain, new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64))
        .rules(RuleSet.of(PER_SECOND, PER_MINUTE)).build();
    assertThat(Calls.admitted(alone, "r", 5)).isEqualTo(3);
    // Rule by rule: two round trips per call, and the per-second count keeps the permits of calls
    // the per-minute rule refused; what the combined counter prevents.
    assertThat(plain.acquires).hasValue(10);
    assertThat(plain.counted("r", Duration.ofSeconds(1))).isEqualTo(5);
    assertThat(weir.cluster()).isNotNull();
  }

  /** Redis down: each rule's own local window decides in turn, and a later refusal gives back the earlier permits. */
  @Test
  void theLocalFallbackDecidesRuleByRuleAndRefundsWhatALaterRuleRefused() {
    FlowRule perMinute = PER_MINUTE.toBuilder().count(4).build();
    Weir weir = engine(ClusterFallback.LOCAL, PER_SECOND, perMinute);
    store.mode = Mode.FAIL;
    assertThat(Calls.admitted(weir, "r", 4)).isEqualTo(4);
    // Each refusal takes a per-second permit and gives it back when the per-minute rule refuses:
    // kept, the 6th call would already be refused by the per-second rule (4 + 2 > 5).
    for (int i = 0; i < 6; i++) {
      assertThat(Calls.tryOnce(weir, "r").rule()).isEqualTo(perMinute);
    }
    ticker.advance(Duration.ofMinutes(1));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(4);
  }

  /**
   * A decision held in flight while other callers proceed: the store decides them in its own
   * order, and what it admitted is what is counted; a decision given up on at the deadline falls
   * back (deny) and, answered later, changes no caller's outcome.
   */
  @Test
  void aDecisionStillInFlightAtItsDeadlineFallsBackAndItsLateAnswerDecidesNothing() {
    Weir weir = engine(ClusterFallback.DENY, PER_SECOND, PER_MINUTE);
    store.mode = Mode.HANG;
    BlockException late = Calls.tryOnce(weir, "r");
    assertThat(late).isInstanceOf(FlowException.class);
    assertThat(late.rule()).isEqualTo(PER_SECOND);
    CompletableFuture<ClusterDecision> hung = store.hanging.poll();
    assertThat(hung).isNotNull();
    assertThat(hung.isCancelled()).as("given up on at the deadline").isTrue();
    store.mode = Mode.COUNT;
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(3);
    assertThat(weir.cluster().fallbacks()).isEqualTo(1);
  }
}
