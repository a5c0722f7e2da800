package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleReplacementTest {

  private final FakeTicker ticker = new FakeTicker();
  private final Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).build();

  @Test
  void unchangedRuleKeepsItsWindowCounts() {
    FlowRule limit = FlowRule.qps("r", 3);
    weir.rules().update("r", current -> current.withFlow(List.of(limit)));
    assertThat(Calls.admitted(weir, "r", 2)).isEqualTo(2);

    weir.rules().update("r", current -> current.withFlow(List.of(limit, FlowRule.threads("r", 10))));
    assertThat(Calls.admitted(weir, "r", 5)).as("the qps rule still remembers two").isEqualTo(1);
  }

  @Test
  void changedCountKeepsTheWindowOtherChangesStartFresh() {
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", 3))));
    Calls.admitted(weir, "r", 3);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", 4))));
    assertThat(Calls.admitted(weir, "r", 5)).as("the window holds the 3 already admitted").isEqualTo(1);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.builder("r").count(4).exact(true).build())));
    assertThat(Calls.admitted(weir, "r", 5)).as("another kind of limiter: nothing to carry over").isEqualTo(4);
  }

  @Test
  void unchangedWarmUpRuleKeepsItsWarmth() {
    FlowRule warmUp = FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofSeconds(2)).build();
    weir.rules().update("r", current -> current.withFlow(List.of(warmUp)));
    for (int ms = 0; ms < 5_000; ms++) { // warm it up
      Calls.tryOnce(weir, "r");
      ticker.advance(Duration.ofMillis(1));
    }
    weir.rules().update("r", current -> current.withFlow(List.of(warmUp, FlowRule.threads("r", 50))));
    int admitted = 0;
    for (int ms = 0; ms < 1_000; ms++) {
      admitted += Calls.tryOnce(weir, "r") == null ? 1 : 0;
      ticker.advance(Duration.ofMillis(1));
    }
    assertThat(admitted).as("still warm: the full rate").isBetween(99, 101);
  }

  @Test
  void unchangedQueueRuleKeepsItsPosition() {
    FlowRule queue = FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ZERO).build();
    weir.rules().update("r", current -> current.withFlow(List.of(queue)));
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    weir.rules().update("r", current -> current.withFlow(List.of(queue, FlowRule.threads("r", 5))));
    assertThat(Calls.tryOnce(weir, "r")).as("next slot is still 100 ms away").isNotNull();
  }

  @Test
  void invalidReplacementChangesNothing() {
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", 1))));
    assertThatThrownBy(() -> weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", 5), FlowRule.qps("r", -1)))))
        .isInstanceOf(InvalidRulesException.class)
        .hasMessageContaining("[1].count");
    assertThat(weir.rules().rules("r").flow()).containsExactly(FlowRule.qps("r", 1));
    assertThat(Calls.admitted(weir, "r", 3)).isEqualTo(1);
  }

  @Test
  void rulesMustNameTheResourceTheyReplace() {
    assertThatThrownBy(() -> weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("other", 5)))))
        .isInstanceOf(InvalidRulesException.class)
        .satisfies(e -> assertThat(((InvalidRulesException) e).violations())
            .anySatisfy(v -> assertThat(v.field()).isEqualTo("flow[0].resource")));
  }

  @Test
  void otherResourcesAreUntouchedAndEmptyListRemoves() {
    weir.rules().load(RuleSet.empty().withFlow(List.of(FlowRule.qps("a", 1), FlowRule.qps("b", 1))));
    weir.rules().update("a", current -> current.withFlow(List.of()));
    assertThat(weir.rules().rulesByResource()).containsOnlyKeys("b");
    assertThat(Calls.admitted(weir, "a", 3)).isEqualTo(3);
    assertThat(Calls.admitted(weir, "b", 3)).isEqualTo(1);
  }

  @Test
  void loadReplacesEveryResource() {
    weir.rules().load(RuleSet.empty().withFlow(List.of(FlowRule.qps("a", 1), FlowRule.qps("b", 1))));
    weir.rules().load(RuleSet.empty().withFlow(List.of(FlowRule.qps("c", 1))));
    assertThat(weir.rules().rulesByResource()).containsOnlyKeys("c");
  }

  @Test
  void clusterModeIsRefusedWithoutAClusterLimiter() {
    FlowRule clustered = FlowRule.builder("r").count(10).clusterMode(true).build();
    assertThatThrownBy(() -> weir.rules().load(RuleSet.empty().withFlow(List.of(clustered))))
        .isInstanceOf(InvalidRulesException.class)
        .hasMessageContaining("[0].cluster-mode");
  }

  @Test
  void updateReadsAndWritesInOneStepAndValidatesTheResult() {
    weir.rules().replace("r", dev.weir.rule.RuleSet.empty().withFlow(List.of(FlowRule.qps("r", 1))));
    dev.weir.rule.RuleSet before = weir.rules().update("r",
        current -> current.withFlow(List.of(current.flow().get(0), FlowRule.threads("r", 3))));
    assertThat(before.flow()).containsExactly(FlowRule.qps("r", 1));
    assertThat(weir.rules().rules("r").flow()).hasSize(2);
    assertThatThrownBy(() -> weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", -1)))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("flow[0].count");
    assertThat(weir.rules().rules("r").flow()).hasSize(2);
  }

  /*
   * limit-app: other keeps a limiter per origin up to maxOriginsPerResource and one overflow limiter
   * shared by the origins beyond. A change of count alone carries every one of them, the overflow
   * limiter included (it was dropped before: the overflow origins then started from nothing).
   */

  private static Entry asyncAs(Weir engine, String origin) {
    try (ContextScope scope = engine.enterContext("c", origin)) {
      return engine.asyncEntry("r", EntryType.OUT, 1);
    }
  }

  private static int admittedAs(Weir engine, String origin, int attempts) {
    try (ContextScope scope = engine.enterContext("c", origin)) {
      return Calls.admitted(engine, "r", attempts);
    }
  }

  @Test
  void aThreadsCountChangeKeepsTheCallsInsideTheOverflowLimiterOfOtherOrigins() {
    Weir engine = Weir.builder().ticker(ticker).sleeper(ticker).maxOriginsPerResource(1).build();
    FlowRule two = FlowRule.builder("r").grade(dev.weir.rule.FlowGrade.THREADS).count(2)
        .limitApp(FlowRule.LIMIT_APP_OTHER).build();
    engine.rules().update("r", current -> current.withFlow(List.of(two)));
    Entry own = asyncAs(engine, "a"); // origin a takes the one per-origin limiter
    Entry first = asyncAs(engine, "b"); // b and c share the overflow limiter
    Entry second = asyncAs(engine, "c");
    assertThatThrownBy(() -> asyncAs(engine, "d")).isInstanceOf(BlockException.class);

    engine.rules().update("r", current -> current.withFlow(List.of(two.toBuilder().count(3).build())));
    Entry third = asyncAs(engine, "d");
    assertThatThrownBy(() -> asyncAs(engine, "e")).as("two still inside the overflow limiter, of three")
        .isInstanceOf(BlockException.class);
    Entry ownSecond = asyncAs(engine, "a");
    assertThat(ownSecond).as("origin a's own limiter carried too: one inside, of three").isNotNull();
    for (Entry entry : List.of(own, first, second, third, ownSecond)) {
      entry.close();
    }
  }

  @Test
  void aQpsCountChangeKeepsTheWindowOfTheOverflowLimiterOfOtherOrigins() {
    Weir engine = Weir.builder().ticker(ticker).sleeper(ticker).maxOriginsPerResource(1).build();
    FlowRule three = FlowRule.builder("r").count(3).interval(Duration.ofHours(1))
        .limitApp(FlowRule.LIMIT_APP_OTHER).build();
    engine.rules().update("r", current -> current.withFlow(List.of(three)));
    assertThat(admittedAs(engine, "a", 1)).isEqualTo(1);
    assertThat(admittedAs(engine, "b", 1) + admittedAs(engine, "c", 1)).as("two in the overflow window").isEqualTo(2);

    engine.rules().update("r", current -> current.withFlow(List.of(three.toBuilder().count(4).build())));
    assertThat(admittedAs(engine, "d", 5)).as("the hour's window remembers its two admissions").isEqualTo(2);
    assertThat(admittedAs(engine, "a", 5)).as("origin a's window remembers its one").isEqualTo(3);
  }

  /**
   * Replacing a resource's rules matches each new rule to the old one it continues by hash, in
   * linear time; pairwise matching is quadratic (4*10^8 comparisons for 20,000 rules, many seconds).
   * Asserted as a ratio, which does not depend on how fast or busy the machine is: four times the
   * rules cost less than ten times the thread's CPU time (linear gives about 4, quadratic 16), each
   * the least of three runs taken in turn.
   */
  @Test
  void replacingThousandsOfRulesOfOneResourceKeepsEachStateInLinearTime() {
    long small = Long.MAX_VALUE;
    long large = Long.MAX_VALUE;
    for (int round = 0; round < 4; round++) { // the first round warms up
      long smallRound = twoReplacementsCpuNanos(5_000);
      long largeRound = twoReplacementsCpuNanos(20_000);
      if (round > 0) {
        small = Math.min(small, smallRound);
        large = Math.min(large, largeRound);
      }
    }
    System.out.printf("two replacements, least CPU time: 5,000 rules %.1f ms, 20,000 rules %.1f ms%n", small / 1e6,
        large / 1e6);
    assertThat((double) large / small).as("CPU time of four times the rules, times").isLessThan(10);
  }

  /** The CPU time this thread takes to replace {@code n} rules of one resource by recounted ones and back. */
  private static long twoReplacementsCpuNanos(int n) {
    Weir engine = Weir.builder().ticker(new FakeTicker()).build();
    List<FlowRule> many = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      many.add(FlowRule.builder("r").count(1_000 + i).interval(Duration.ofSeconds(1 + i % 50)).build());
    }
    engine.rules().update("r", current -> current.withFlow(many));
    List<FlowRule> recounted = many.stream().map(rule -> rule.toBuilder().count(rule.count() + 1).build()).toList();
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long started = threads.getCurrentThreadCpuTime();
    engine.rules().update("r", current -> current.withFlow(recounted));
    engine.rules().update("r", current -> current.withFlow(many));
    long took = threads.getCurrentThreadCpuTime() - started;
    assertThat(engine.rules().rules("r").flow()).isEqualTo(many);
    return took;
  }
}
