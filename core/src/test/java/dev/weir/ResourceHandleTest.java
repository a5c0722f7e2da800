package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A {@link Resource} handle decides as calls by name do, on the same limiters and statistics, and
 * follows rule changes made before or after it was resolved; beyond the engine's bound it passes
 * calls unchecked, as calls by name do, until the resource gets rules.
 */
class ResourceHandleTest {

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(RuleSet rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(rules).build();
  }

  @Test
  void aHandleAndCallsByNameShareOneLimiterAndOneResourcesStatistics() {
    Weir weir = engine(RuleSet.of(FlowRule.qps("orders", 3)));
    Resource orders = weir.resource("orders");
    orders.entry().close();
    weir.entry("orders").close();
    Entry third = orders.tryEntry(EntryType.IN, 1);
    assertThat(third).isNotNull();
    third.close();
    assertThat(orders.tryEntry(EntryType.IN, 1)).as("the fourth in the second, through the handle").isNull();
    assertThatThrownBy(() -> weir.entry("orders")).isInstanceOf(FlowException.class);
    assertThatThrownBy(orders::entry).isInstanceOf(FlowException.class)
        .extracting(e -> ((BlockException) e).resource()).isEqualTo("orders");
    assertThat(orders.statistics()).isSameAs(weir.statistics("orders"));
    assertThat(orders.statistics().totalPassed()).isEqualTo(3);
    assertThat(orders.statistics().totalBlocked()).isEqualTo(3);
    assertThat(orders.name()).isEqualTo("orders");
  }

  @Test
  void aHandleFollowsRulesSetAndReplacedAfterItWasResolved() {
    Weir weir = engine(RuleSet.empty());
    Resource orders = weir.resource("orders");
    for (int i = 0; i < 5; i++) {
      orders.entry().close(); // no rule yet
    }
    weir.rules().replace("orders", RuleSet.of(FlowRule.qps("orders", 1)));
    ticker.advance(java.time.Duration.ofSeconds(2));
    orders.entry().close();
    assertThat(orders.tryEntry(EntryType.OUT, 1)).as("the new rule's count of 1").isNull();
    weir.rules().replace("orders", RuleSet.of(FlowRule.qps("orders", 3)));
    Entry second = orders.tryEntry(EntryType.OUT, 1);
    assertThat(second).as("the count raised to 3 carries the window over").isNotNull();
    second.close();
    weir.rules().replace("orders", RuleSet.empty());
    for (int i = 0; i < 5; i++) {
      orders.entry().close();
    }
  }

  @Test
  void aHandleGivesArgumentsToHotParameterRulesAndQuotas() {
    Weir weir = engine(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("api").count(2).build())));
    Resource api = weir.resource("api");
    api.entry(EntryType.IN, 1, "alice").close();
    api.entry(EntryType.IN, 1, "alice").close();
    assertThat(api.tryEntry(EntryType.IN, 1, "alice")).isNull();
    assertThat(api.tryEntry(EntryType.IN, 1, "bob")).isNotNull().satisfies(Entry::close);
    assertThat(api.quotas("bob")).singleElement().extracting(Quota::remaining).isEqualTo(1L);
  }

  @Test
  void anAsyncEntryOfAHandleClosesFromAnotherThread() throws InterruptedException {
    Weir weir = engine(RuleSet.of(FlowRule.threads("jobs", 1)));
    Resource jobs = weir.resource("jobs");
    Entry entry = jobs.asyncEntry(EntryType.OUT, 1);
    assertThatThrownBy(() -> jobs.asyncEntry(EntryType.OUT, 1)).isInstanceOf(FlowException.class);
    Thread closer = new Thread(entry::close);
    closer.start();
    closer.join();
    jobs.asyncEntry(EntryType.OUT, 1, Criticality.CRITICAL, null).close();
  }

  @Test
  void beyondTheEnginesBoundAHandlesCallsPassUncheckedUntilTheResourceHasRules() {
    Weir weir = Weir.builder().ticker(ticker).maxResources(1).build();
    weir.entry("first").close();
    Resource late = weir.resource("late");
    assertThat(weir.uncheckedCalls()).as("resolving is not a call").isZero();
    assertThat(late.statistics()).isNull();
    late.entry().close();
    late.entry().close();
    assertThat(weir.uncheckedCalls()).isEqualTo(2);
    weir.rules().replace("late", RuleSet.of(FlowRule.qps("late", 1)));
    late.entry().close();
    assertThat(late.tryEntry(EntryType.OUT, 1)).as("checked once it has rules").isNull();
    assertThat(late.statistics().totalPassed()).isEqualTo(1);
  }

  @Test
  void aNullNameOrABadCallIsRefusedClearly() {
    Weir weir = engine(RuleSet.empty());
    assertThatNullPointerException().isThrownBy(() -> weir.resource(null)).withMessage("resource");
    Resource r = weir.resource("r");
    assertThatThrownBy(() -> r.entry(EntryType.IN, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("acquireCount must be at least 1");
    assertThatNullPointerException().isThrownBy(() -> r.entry(null)).withMessage("type");
    assertThatNullPointerException().isThrownBy(() -> r.tryEntry(EntryType.IN, 1, null, new Object[0]));
  }
}
