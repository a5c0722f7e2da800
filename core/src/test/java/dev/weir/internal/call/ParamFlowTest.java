package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.FlowException;
import dev.weir.KeyExpressions;
import dev.weir.ParamFlowException;
import dev.weir.ParamFlowKey;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.NullKey;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ParamFlowTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);

  private Weir engine(ParamFlowRule... rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker)
        .rules(RuleSet.empty().withParamFlow(List.of(rules))).build();
  }

  private static BlockException call(Weir weir, Object... args) {
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, args)) {
      return null;
    } catch (BlockException refused) {
      return refused;
    }
  }

  private static int admitted(Weir weir, int attempts, Object... args) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      admitted += call(weir, args) == null ? 1 : 0;
    }
    return admitted;
  }

  @Test
  void eachValueHasItsOwnBucket() {
    Weir weir = engine(ParamFlowRule.builder("r").count(2).build());
    assertThat(admitted(weir, 5, "a")).isEqualTo(2);
    assertThat(admitted(weir, 5, "b")).isEqualTo(2);
    BlockException refused = call(weir, "a");
    assertThat(refused).isInstanceOf(ParamFlowException.class);
    assertThat(refused.ruleKind().tag()).isEqualTo("param-flow");
  }

  @Test
  void refillIsCountPerDurationAndBurstAddsHeadroom() {
    Weir weir = engine(ParamFlowRule.builder("r").count(10).burst(5).duration(Duration.ofSeconds(1)).build());
    assertThat(admitted(weir, 100, "v")).as("count + burst after idling").isEqualTo(15);
    BlockException refused = call(weir, "v");
    assertThat(refused.retryAfter()).as("one permit refills in 100 ms").isEqualTo(Duration.ofMillis(100));
    ticker.advance(Duration.ofMillis(100));
    assertThat(admitted(weir, 100, "v")).isEqualTo(1);
    ticker.advance(Duration.ofMillis(350));
    assertThat(admitted(weir, 100, "v")).as("3.5 permits refilled, whole ones usable").isEqualTo(3);
    ticker.advance(Duration.ofMillis(50));
    assertThat(admitted(weir, 100, "v")).as("the half permit completed").isEqualTo(1);
  }

  @Test
  void veryLongIdleRefillsToCapacityWithoutOverflow() {
    Weir weir = engine(ParamFlowRule.builder("r").count(1_000_000).burst(1_000_000)
        .duration(Duration.ofMillis(1)).build());
    assertThat(admitted(weir, 10, "v")).isEqualTo(10);
    ticker.advanceNanos(Long.MAX_VALUE / 4); // ~73 years idle
    assertThat(admitted(weir, 3, "v")).isEqualTo(3);
    Weir slow = engine(ParamFlowRule.builder("r").count(1).duration(Duration.ofDays(1)).build());
    assertThat(admitted(slow, 3, "v")).isEqualTo(1);
    ticker.advanceNanos(Long.MAX_VALUE / 4);
    assertThat(admitted(slow, 3, "v")).isEqualTo(1);
  }

  @Test
  void exceptionsGiveValuesTheirOwnCount() {
    Weir weir = engine(ParamFlowRule.builder("r").count(1)
        .exceptions(List.of(new ParamFlowItem("vip", 5), new ParamFlowItem("42", 3))).build());
    assertThat(admitted(weir, 10, "vip")).isEqualTo(5);
    assertThat(admitted(weir, 10, "regular")).isEqualTo(1);
    assertThat(admitted(weir, 10, 42)).as("matched by String.valueOf").isEqualTo(3);
  }

  @Test
  void negativeIndexCountsFromTheEnd() {
    Weir weir = engine(ParamFlowRule.builder("r").paramIndex(-1).count(1).build());
    assertThat(admitted(weir, 3, "x", "last")).isEqualTo(1);
    assertThat(admitted(weir, 3, "last", "other")).isEqualTo(1);
  }

  /*
   * Changed with null-key: this test asserted that a null argument is not limited. The contract
   * makes null keys shared by default (one bucket for all of them), with allow and deny to choose;
   * a call without the argument at all is still not limited.
   */
  @Test
  void missingIndexesAreNotLimited() {
    Weir weir = engine(ParamFlowRule.builder("r").paramIndex(2).count(0).build());
    assertThat(admitted(weir, 3, "a", "b")).isEqualTo(3);
    assertThat(admitted(weir, 3, "a", "b", "c")).isZero();
    Weir noArgs = engine(ParamFlowRule.builder("r").count(0).build());
    assertThat(Calls.admitted(noArgs, "r", 3)).isEqualTo(3);
  }

  @Test
  void nullKeysShareOneBucketByDefault() {
    Weir weir = engine(ParamFlowRule.builder("r").count(2).build());
    assertThat(admitted(weir, 5, (Object) null)).isEqualTo(2);
    assertThat(admitted(weir, 5, List.of())).as("an empty collection has no key to count").isEqualTo(5);
    assertThat(admitted(weir, 5, "a")).as("a key of its own").isEqualTo(2);
    assertThat(admitted(weir, 2, (ParamFlowKey) () -> null)).as("a ParamFlowKey giving null is a null key").isZero();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(admitted(weir, 5, (Object) null)).isEqualTo(2);
  }

  @Test
  void nullKeysAllowedOrDenied() {
    Weir allow = engine(ParamFlowRule.builder("r").count(0).nullKey(NullKey.ALLOW).build());
    assertThat(admitted(allow, 3, (Object) null)).isEqualTo(3);
    assertThat(admitted(allow, 3, "a")).isZero();
    Weir deny = engine(ParamFlowRule.builder("r").count(100).nullKey(NullKey.DENY).build());
    BlockException refused = call(deny, (Object) null);
    assertThat(refused).isInstanceOf(ParamFlowException.class);
    assertThat(refused.retryAfter()).isZero();
    assertThat(((ParamFlowException) refused).missingKey()).as("refused for having no key").isTrue();
    assertThat(refused.getMessage()).endsWith("(the call has no key)");
    assertThat(admitted(deny, 3, "a")).isEqualTo(3);
    BlockException overLimit = call(allow, "a");
    assertThat(((ParamFlowException) overLimit).missingKey()).as("refused by the limit of its key").isFalse();
    Weir shadowDeny = engine(ParamFlowRule.builder("r").count(100).nullKey(NullKey.DENY).shadow(true).build());
    assertThat(admitted(shadowDeny, 3, (Object) null)).as("shadow mode only counts").isEqualTo(3);
    assertThat(shadowDeny.statistics("r").totalShadowBlocked(dev.weir.rule.RuleKind.PARAM_FLOW)).isEqualTo(3);
  }

  @Test
  void aKeyExpressionNamesTheKey() {
    KeyExpressions secondCharacter = (resource, expression) -> {
      if (!expression.equals("first-letter")) {
        throw new IllegalArgumentException("unknown: " + expression);
      }
      return args -> args.length == 0 || args[0] == null ? null : ((String) args[0]).substring(0, 1);
    };
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).keyExpressions(secondCharacter)
        .rules(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").key("first-letter").count(2)
            .exceptions(List.of(new ParamFlowItem("v", 3))).build()))).build();
    assertThat(admitted(weir, 2, "apple")).isEqualTo(2);
    assertThat(admitted(weir, 2, "avocado")).as("the same key, a").isZero();
    assertThat(admitted(weir, 5, "vip")).as("the exception of v").isEqualTo(3);
    assertThat(admitted(weir, 5, (Object) null)).as("null keys shared").isEqualTo(2);
    assertThat(Calls.admitted(weir, "r", 3)).as("no arguments: the expression gives null, already used up").isZero();

    assertThatThrownBy(() -> weir.rules().replace("r", RuleSet.empty().withParamFlow(List.of(
        ParamFlowRule.builder("r").key("nonsense").count(1).build()))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("param-flow[0].key")
        .hasMessageContaining("unknown: nonsense");
  }

  @Test
  void withoutKeyExpressionsARuleWithAKeyIsRefused() {
    assertThatThrownBy(() -> engine(ParamFlowRule.builder("r").key("#p0").count(1).build()))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("param-flow[0].key")
        .hasMessageContaining("no key expressions");
    assertThatThrownBy(() -> engine(ParamFlowRule.builder("r").key("#p0").paramIndex(1).count(1).build()))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("param-index");
  }

  @Test
  void clusterModeNeedsAClusterClient() {
    assertThatThrownBy(() -> engine(ParamFlowRule.builder("r").count(1).clusterMode(true).build()))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("param-flow[0].cluster-mode")
        .hasMessageContaining("cluster client");
  }

  @Test
  void collectionsAndArraysCountEachElement() {
    Weir weir = engine(ParamFlowRule.builder("r").count(2).build());
    assertThat(call(weir, List.of("a", "b"))).isNull();
    assertThat(call(weir, (Object) new String[] {"a", "c"})).isNull();
    assertThat(call(weir, Set.of("a"))).as("a has used its two permits").isInstanceOf(ParamFlowException.class);
    assertThat(call(weir, (Object) new int[] {7, 7})).isNull();
    assertThat(call(weir, (Object) new int[] {7})).isNotNull();
    // The refusal of "a" refunded nothing wrongly: b and c still have one permit each.
    assertThat(call(weir, List.of("b", "c"))).isNull();
  }

  @Test
  void permitsOfEarlierElementsAreRefundedWhenALaterOneIsRefused() {
    Weir weir = engine(ParamFlowRule.builder("r").count(1).build());
    assertThat(call(weir, "b")).isNull();
    assertThat(call(weir, List.of("a", "b"))).isNotNull();
    assertThat(call(weir, "a")).as("a's permit came back").isNull();
  }

  record Order(String customer, int id) implements ParamFlowKey {
    @Override
    public Object paramFlowKey() {
      return customer;
    }
  }

  @Test
  void argumentsMayChooseTheirKey() {
    Weir weir = engine(ParamFlowRule.builder("r").count(1).build());
    assertThat(call(weir, new Order("acme", 1))).isNull();
    assertThat(call(weir, new Order("acme", 2))).as("same customer").isNotNull();
    assertThat(call(weir, new Order("other", 3))).isNull();
  }

  @Test
  void threadsGradeLimitsCallsInsidePerValue() {
    Weir weir = engine(ParamFlowRule.builder("r").grade(FlowGrade.THREADS).count(1).build());
    Entry a = weir.entry("r", EntryType.OUT, 1, "a");
    assertThat(call(weir, "a")).isInstanceOf(ParamFlowException.class);
    assertThat(call(weir, "b")).isNull();
    a.close();
    assertThat(call(weir, "a")).isNull();
  }

  @Test
  void queueSpacesCallsOfOneValue() {
    Weir weir = engine(ParamFlowRule.builder("r").count(10).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofMillis(250)).build());
    long start = ticker.read();
    for (int i = 0; i < 4; i++) {
      assertThat(call(weir, "v")).isNull();
    }
    assertThat(ticker.read() - start).isEqualTo(300_000_000L);
  }

  @Test
  void refusalByALaterFlowRuleRefundsTheValuesPermit() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.empty()
        .withParamFlow(List.of(ParamFlowRule.builder("r").count(1).build()))
        .withFlow(List.of(FlowRule.qps("r", 0)))).build();
    assertThat(call(weir, "v")).isInstanceOf(FlowException.class);
    weir.rules().replace("r", weir.rules().rules("r").withFlow(List.of()));
    assertThat(call(weir, "v")).isNull();
  }

  @Test
  void distinctValuesAreBoundedByTheLru() {
    Weir weir = engine(ParamFlowRule.builder("r").count(1).build());
    for (int i = 0; i < 1_000_000; i++) {
      call(weir, i);
    }
    ParamFlowRuleState state = ((ResourceNode) weir.statistics("r")).rules.paramFlow[0];
    assertThat(state.trackedValues()).isLessThanOrEqualTo(ParamFlowRule.MAX_TRACKED_VALUES);
    assertThat(state.trackedValues()).isGreaterThan(ParamFlowRule.MAX_TRACKED_VALUES / 2);
    // The most recent values are still tracked and limited.
    assertThat(call(weir, 999_999)).isNotNull();
  }

  /**
   * 10^5 distinct keys from a key expression (an API key per call, as a route would see) stay within
   * the LRU's bound; the heap the rule keeps is measured after a full collection and printed.
   */
  @Test
  void distinctKeysOfAnExpressionAreBoundedByTheLru() {
    KeyExpressions header = (resource, expression) -> args -> args[0];
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).keyExpressions(header)
        .rules(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").key("#p0").count(5).build())))
        .build();
    long before = usedHeapAfterGc();
    for (int i = 0; i < 100_000; i++) {
      call(weir, "api-key-" + i);
    }
    long after = usedHeapAfterGc();
    ParamFlowRuleState state = ((ResourceNode) weir.statistics("r")).rules.paramFlow[0];
    assertThat(state.trackedValues()).isLessThanOrEqualTo(ParamFlowRule.MAX_TRACKED_VALUES)
        .isGreaterThan(ParamFlowRule.MAX_TRACKED_VALUES / 2);
    System.out.printf("10^5 distinct keys: %d tracked, heap kept about %d KB%n", state.trackedValues(),
        (after - before) / 1024);
    assertThat(call(weir, "api-key-99999")).as("the newest key is still tracked and counted").isNull();
  }

  private static long usedHeapAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
