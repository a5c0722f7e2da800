package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Entry#settle} through the engine: per key, across a change of the rule's count, in shadow
 * mode, and the resource's learnt cost estimate ({@link Resource#costEstimate}).
 */
class SettleEngineTest {

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(RuleSet rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(rules).build();
  }

  private boolean admits(Weir weir, String resource, int permits, Object... args) {
    Entry entry = weir.tryEntry(resource, EntryType.OUT, permits, args);
    if (entry == null) {
      return false;
    }
    entry.close();
    return true;
  }

  @Test
  void aKeysRefundAndDebtStayWithItsKey() {
    Weir weir = engine(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").count(10).build())));
    try (Entry entry = weir.entry("r", EntryType.OUT, 10, "a")) {
      entry.settle(2);
    }
    assertThat(admits(weir, "r", 8, "a")).isTrue();
    assertThat(admits(weir, "r", 1, "a")).isFalse();
    try (Entry entry = weir.entry("r", EntryType.OUT, 10, "b")) {
      entry.settle(30); // b's bucket is empty: b owes 20, taken as it refills (at most 10 at once); a owes nothing
    }
    ticker.advance(Duration.ofSeconds(3));
    assertThat(admits(weir, "r", 1, "b")).as("10 of the 20 taken").isFalse();
    assertThat(admits(weir, "r", 10, "a")).isTrue();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(admits(weir, "r", 1, "b")).as("the other 10 taken: the bucket is empty again").isFalse();
    ticker.advance(Duration.ofMillis(100));
    assertThat(admits(weir, "r", 1, "b")).isTrue();
  }

  /**
   * An exact window's limiter is replaced when its count changes: a call admitted before the change
   * settles its debt with the new one (before the successor chain, the debt went to the replaced
   * limiter and was lost).
   */
  @Test
  void aDebtSurvivesACountChange() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("r").count(10).exact(true).build()));
    Entry entry = weir.entry("r", EntryType.OUT, 10);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.builder("r").count(20).exact(true).build())));
    entry.settle(40); // 30 over the estimate: 20 fit in the new window now, 10 owed
    entry.close();
    assertThat(admits(weir, "r", 1)).isFalse();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(admits(weir, "r", 10)).as("the 10 owed taken first").isTrue();
    assertThat(admits(weir, "r", 1)).isFalse();
  }

  @Test
  void aRefundSurvivesACountChange() {
    Weir weir = engine(RuleSet.of(FlowRule.qps("r", 100)));
    Entry entry = weir.entry("r", EntryType.OUT, 100);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", 150))));
    entry.settle(0);
    entry.close();
    assertThat(admits(weir, "r", 150)).isTrue();
  }

  @Test
  void aQueueDebtMovesTheNextCallOfTheRuleAsItIsNow() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofSeconds(10)).build()));
    Entry entry = weir.entry("r");
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.builder("r").count(20)
        .controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ofSeconds(10)).build())));
    entry.settle(21); // 20 over: 1 s at the new 50 ms spacing
    entry.close();
    long before = ticker.totalSleptNanos();
    weir.entry("r").close();
    assertThat(ticker.totalSleptNanos() - before).isEqualTo(1_000_000_000L);
  }

  /**
   * A rule in shadow mode counts settled costs as the same rule in force does: over one seeded run,
   * it would refuse exactly the calls the rule in force refuses.
   */
  @Test
  void aShadowRuleCountsSettledCostsAsItWouldInForce() {
    FlowRule rule = FlowRule.qps("r", 100);
    Weir inForce = engine(RuleSet.of(rule));
    Weir shadow = engine(RuleSet.of(rule.toBuilder().shadow(true).build()));
    SplittableRandom random = new SplittableRandom(39);
    long refused = 0;
    for (int i = 0; i < 2_000; i++) {
      ticker.advance(Duration.ofMillis(10));
      long cost = random.nextInt(30);
      Entry real = inForce.tryEntry("r", EntryType.OUT, 10);
      try (Entry watched = shadow.entry("r", EntryType.OUT, 10)) {
        if (real == null) {
          refused++;
        } else {
          real.settle(cost);
          real.close();
          watched.settle(cost);
        }
      }
    }
    assertThat(refused).isPositive();
    assertThat(shadow.statistics("r").totalShadowBlocked(RuleKind.FLOW)).isEqualTo(refused * 10);
  }

  /** The documentation's example: a budget of 10,000 tokens a minute, answers of 3,000 tokens. */
  @Test
  void theDocumentedExampleSettlesEachAnswerAtItsTokens() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("llm").count(10_000).interval(Duration.ofSeconds(60)).build()));
    TokenCalls calls = new TokenCalls(weir, prompt -> new TokenCalls.Answer("ok", 3_000));
    calls.ask("first"); // took 1000, settled at 3000
    calls.ask("second"); // took the estimate learnt: 3000's bucket, 3071
    calls.ask("third");
    assertThat(weir.resource("llm").costEstimate(1_000)).isEqualTo(3_071);
    // 9000 used of 10000: a fourth answer, estimated at 3071, does not fit
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> calls.ask("fourth")))
        .isInstanceOf(FlowException.class);
  }

  @Test
  void theCostEstimateIsARunningHighPercentileOfSettledCosts() {
    Weir weir = engine(RuleSet.empty());
    Resource resource = weir.resource("r");
    assertThat(resource.costEstimate(42)).as("nothing settled yet").isEqualTo(42);
    for (int round = 0; round < 10; round++) {
      for (int cost = 1; cost <= 100; cost++) {
        try (Entry entry = resource.entry()) {
          entry.settle(cost);
        }
      }
    }
    assertThat(resource.costEstimate(42)).as("p95 of 1..100 is 95, its bucket 80..95").isEqualTo(95);
    for (int i = 0; i < 20_000; i++) {
      try (Entry entry = resource.entry()) {
        entry.settle(1_000);
      }
    }
    assertThat(resource.costEstimate(42)).as("costs moved to 1000: bucket 896..1023").isEqualTo(1_023);
  }
}
