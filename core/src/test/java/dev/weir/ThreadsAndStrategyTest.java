package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.RuleSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThreadsAndStrategyTest {

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(FlowRule... rules) {
    return Weir.builder().ticker(ticker).rules(RuleSet.of(rules)).build();
  }

  @Test
  void threadsRuleLimitsCallsInsideAndFreesPlacesOnClose() {
    Weir weir = engine(FlowRule.threads("r", 2));
    List<Entry> open = Calls.open(weir, "r", 3);
    assertThat(open.get(0)).isNotNull();
    assertThat(open.get(1)).isNotNull();
    assertThat(open.get(2)).as("third call refused while two are inside").isNull();
    assertThat(weir.statistics("r").activeCalls()).isEqualTo(2);

    open.get(1).close();
    Entry again = weir.entry("r");
    assertThat(weir.statistics("r").activeCalls()).isEqualTo(2);
    again.close();
    open.get(0).close();
    assertThat(weir.statistics("r").activeCalls()).isZero();
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(5);
  }

  @Test
  void chainRuleAppliesOnlyInsideItsContext() {
    FlowRule rule = FlowRule.builder("r").count(1).strategy(FlowStrategy.CHAIN).refResource("checkout").build();
    Weir weir = engine(rule);
    assertThat(Calls.admitted(weir, "r", 5)).as("outside the context: unlimited").isEqualTo(5);
    int inside = weir.callInContext("checkout", null, () -> Calls.admitted(weir, "r", 5));
    assertThat(inside).isEqualTo(1);
    int otherContext = weir.callInContext("browse", null, () -> Calls.admitted(weir, "r", 5));
    assertThat(otherContext).isEqualTo(5);
  }

  @Test
  void relatedRuleRefusesWhileTheOtherResourceIsBusy() {
    FlowRule rule = FlowRule.builder("write").count(3).strategy(FlowStrategy.RELATED).refResource("read").build();
    Weir weir = engine(rule);
    assertThat(Calls.admitted(weir, "write", 2)).as("read is idle").isEqualTo(2);
    Calls.admitted(weir, "read", 3);
    assertThat(Calls.tryOnce(weir, "write")).isInstanceOf(FlowException.class);
    ticker.advance(java.time.Duration.ofSeconds(1));
    assertThat(Calls.tryOnce(weir, "write")).as("read's second has passed").isNull();
  }

  @Test
  void relatedThreadsRuleReadsTheOtherResourcesCallsInside() {
    FlowRule rule = FlowRule.builder("write").grade(FlowGrade.THREADS).count(1).strategy(FlowStrategy.RELATED)
        .refResource("read").build();
    Weir weir = engine(rule);
    try (Entry read = weir.entry("read")) {
      assertThat(Calls.tryOnce(weir, "write")).isInstanceOf(FlowException.class);
    }
    assertThat(Calls.tryOnce(weir, "write")).isNull();
  }

  @Test
  void namedOriginRuleAppliesToThatOriginOnly() {
    Weir weir = engine(FlowRule.builder("r").count(2).limitApp("partner").build());
    assertThat(weir.callInContext("c", "partner", () -> Calls.admitted(weir, "r", 5))).isEqualTo(2);
    assertThat(weir.callInContext("c", "web", () -> Calls.admitted(weir, "r", 5))).isEqualTo(5);
    assertThat(Calls.admitted(weir, "r", 5)).as("no origin").isEqualTo(5);
  }

  @Test
  void otherRuleCountsEachUnnamedOriginApart() {
    Weir weir = engine(
        FlowRule.builder("r").count(5).limitApp("partner").build(),
        FlowRule.builder("r").count(1).limitApp(FlowRule.LIMIT_APP_OTHER).build());
    assertThat(weir.callInContext("c", "a", () -> Calls.admitted(weir, "r", 3))).isEqualTo(1);
    assertThat(weir.callInContext("c", "b", () -> Calls.admitted(weir, "r", 3))).isEqualTo(1);
    assertThat(weir.callInContext("c", "partner", () -> Calls.admitted(weir, "r", 9)))
        .as("a named origin is not 'other'").isEqualTo(5);
    assertThat(Calls.admitted(weir, "r", 3)).as("no origin is not 'other'").isEqualTo(3);
  }

  @Test
  void defaultRuleCountsEveryCallerTogether() {
    Weir weir = engine(FlowRule.qps("r", 4));
    int a = weir.callInContext("c", "a", () -> Calls.admitted(weir, "r", 3));
    int b = weir.callInContext("c", "b", () -> Calls.admitted(weir, "r", 3));
    assertThat(a + b).isEqualTo(4);
  }

  @Test
  void originsBeyondTheBoundShareOneOverflowLimiter() {
    Weir weir = Weir.builder().ticker(ticker).maxOriginsPerResource(2)
        .rules(RuleSet.of(FlowRule.builder("r").count(1).limitApp(FlowRule.LIMIT_APP_OTHER).build())).build();
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      String origin = "caller-" + i;
      admitted += weir.callInContext("c", origin, () -> Calls.admitted(weir, "r", 1));
    }
    // two tracked origins get one permit each; the eight others share one limiter
    assertThat(admitted).isEqualTo(3);
  }

  @Test
  void resourceStatisticsCountTheCallsOfEveryContextAndOrigin() {
    Weir weir = engine();
    weir.runInContext("checkout", "partner", () -> Calls.admitted(weir, "r", 3));
    weir.runInContext("browse", "web", () -> Calls.admitted(weir, "r", 2));
    ResourceStatistics statistics = weir.statistics("r");
    assertThat(statistics.totalPassed()).isEqualTo(5);
    assertThat(statistics.totalSucceeded()).isEqualTo(5);
  }

  @Test
  void contextsNestAndRestore() {
    Weir weir = engine();
    try (ContextScope outer = weir.enterContext("outer", "a")) {
      try (ContextScope inner = weir.enterContext("inner", "b")) {
        try (Entry entry = weir.entry("r")) {
          assertThat(entry.contextName()).isEqualTo("inner");
          assertThat(entry.origin()).isEqualTo("b");
        }
      }
      try (Entry entry = weir.entry("r")) {
        assertThat(entry.contextName()).isEqualTo("outer");
        assertThat(entry.origin()).isEqualTo("a");
      }
    }
    try (Entry entry = weir.entry("r")) {
      assertThat(entry.contextName()).isEqualTo(Weir.DEFAULT_CONTEXT);
      assertThat(entry.origin()).isEmpty();
    }
  }
}
