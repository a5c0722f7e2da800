package dev.weir.internal.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Calls;
import dev.weir.ContextScope;
import dev.weir.Entry;
import dev.weir.FakeTicker;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BoundsAndTimeTest {

  private final FakeTicker ticker = new FakeTicker();

  @Test
  void resourcesBeyondTheBoundPassUncheckedAndAreCounted() {
    Weir weir = Weir.builder().ticker(ticker).maxResources(3).build();
    for (int i = 0; i < 3; i++) {
      Calls.admitted(weir, "r" + i, 1);
    }
    assertThat(Calls.admitted(weir, "r3", 4)).isEqualTo(4);
    assertThat(weir.uncheckedCalls()).isEqualTo(4);
    assertThat(weir.statistics("r3")).isNull();
    assertThat(weir.resources()).containsExactlyInAnyOrder("r0", "r1", "r2");
  }

  @Test
  void resourcesWithRulesAreAlwaysTracked() {
    Weir weir = Weir.builder().ticker(ticker).maxResources(2).build();
    Calls.admitted(weir, "a", 1);
    Calls.admitted(weir, "b", 1);
    weir.rules().update("limited", current -> current.withFlow(List.of(FlowRule.qps("limited", 1))));
    assertThat(Calls.admitted(weir, "limited", 3)).isEqualTo(1);
    assertThat(weir.uncheckedCalls()).isZero();
  }

  @Test
  void anyNumberOfContextNamesKeepsChainRulesApplying() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(
        FlowRule.builder("r").count(1).strategy(dev.weir.rule.FlowStrategy.CHAIN).refResource("second").build()))
        .build();
    for (int i = 0; i < 5000; i++) {
      weir.runInContext("context-" + i, null, () -> Calls.admitted(weir, "r", 1));
    }
    int admitted = weir.callInContext("second", null, () -> Calls.admitted(weir, "r", 3));
    assertThat(admitted).isEqualTo(1);
    assertThat(weir.statistics("r").totalPassed()).isEqualTo(5001);
    assertThat(weir.statistics("r").totalBlocked()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(ControlBehavior.class)
  void tickerGoingBackNeverThrowsNorBlocksForGood(ControlBehavior behavior) {
    FlowRule rule = FlowRule.builder("r").count(5).controlBehavior(behavior).maxQueueingTime(Duration.ZERO)
        .warmUpPeriod(Duration.ofSeconds(1)).build();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).rules(RuleSet.of(rule)).build();
    int before = 0;
    for (int i = 0; i < 50; i++) {
      before += Calls.tryOnce(weir, "r") == null ? 1 : 0;
      ticker.advance(Duration.ofMillis(50));
    }
    ticker.advance(Duration.ofHours(-2));
    // After the jump, the rule must admit again within a few seconds of the new clock.
    int admitted = 0;
    for (int i = 0; i < 100; i++) {
      admitted += Calls.tryOnce(weir, "r") == null ? 1 : 0;
      ticker.advance(Duration.ofMillis(50));
    }
    assertThat(admitted).as("5 per second over 5 s, never more").isBetween(10, 30);
    // Engine time resumed where it was (see EngineClock), so the last minute holds both runs.
    assertThat(weir.statistics("r").passedLastMinute()).as("statistics kept counting").isEqualTo(before + admitted);
  }

  @Test
  void threadsRuleIsNotAffectedByTime() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.threads("r", 1))).build();
    Entry entry = weir.entry("r");
    ticker.advance(Duration.ofDays(-1));
    assertThat(Calls.tryOnce(weir, "r")).isNotNull();
    entry.close();
    assertThat(Calls.tryOnce(weir, "r")).isNull();
  }

  @Test
  void twoEnginesDoNotSeeEachOther() {
    Weir first = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 1))).build();
    Weir second = Weir.builder().ticker(ticker).build();
    assertThat(Calls.admitted(second, "r", 5)).isEqualTo(5);
    assertThat(Calls.admitted(first, "r", 5)).isEqualTo(1);
    try (ContextScope scope = first.enterContext("ctx", "origin")) {
      try (Entry entry = second.entry("x")) {
        assertThat(entry.contextName()).isEqualTo(Weir.DEFAULT_CONTEXT);
      }
    }
    assertThat(second.statistics("r").totalPassed()).isEqualTo(5);
    assertThat(first.statistics("r").totalPassed()).isEqualTo(1);
  }

  @Test
  void resourceListenersHearOfKnownAndNewResourcesOnce() {
    Weir weir = Weir.builder().ticker(ticker).maxResources(2).rules(RuleSet.of(FlowRule.qps("ruled", 5))).build();
    Calls.admitted(weir, "early", 1);
    List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    weir.addResourceListener(stats -> heard.add(stats.resource()));
    assertThat(heard).containsExactlyInAnyOrder("ruled", "early");
    Calls.admitted(weir, "late", 3);
    weir.rules().update("fresh", current -> current.withFlow(List.of(FlowRule.qps("fresh", 1))));
    Calls.admitted(weir, "beyond-the-bound", 1);
    assertThat(heard).containsExactlyInAnyOrder("ruled", "early", "late", "fresh");
  }
}
