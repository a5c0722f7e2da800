package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.FlowGrade;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where a call's criticality comes from: the context it runs in, else what its caller passes, else
 * {@code CRITICAL}; carried like the context name and the origin, to the entry, to custom slots, and
 * to asynchronous entries taken in the context.
 */
class CriticalityContextTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<Criticality> seenBySlot = new ArrayList<>();
  private final Weir weir = Weir.builder().ticker(ticker).slot(new ProcessorSlot() {
    @Override
    public int order() {
      return 0;
    }

    @Override
    public void admitted(Invocation invocation) {
      seenBySlot.add(invocation.criticality());
    }
  }).build();

  private Criticality criticalityOfACall() {
    try (Entry entry = weir.entry("r")) {
      return entry.criticality();
    }
  }

  @Test
  void aCallOutsideAnyContextIsCritical() {
    assertThat(criticalityOfACall()).isEqualTo(Criticality.CRITICAL);
    assertThat(weir.contextCriticality()).isNull();
  }

  @Test
  void aContextGivesItsCallsItsCriticalityAndClosingRestoresTheEnclosingOne() {
    try (ContextScope outer = weir.enterContext("batch", "reporter", Criticality.SHEDDABLE)) {
      assertThat(criticalityOfACall()).isEqualTo(Criticality.SHEDDABLE);
      try (ContextScope inner = weir.enterContext("urgent", "reporter", Criticality.CRITICAL_PLUS)) {
        assertThat(criticalityOfACall()).isEqualTo(Criticality.CRITICAL_PLUS);
      }
      assertThat(criticalityOfACall()).isEqualTo(Criticality.SHEDDABLE);
      try (ContextScope plain = weir.enterContext("nested", "reporter")) {
        try (Entry entry = weir.entry("r")) {
          assertThat(entry.contextName()).isEqualTo("nested");
          assertThat(entry.criticality()).as("a context entered without one keeps the enclosing one")
              .isEqualTo(Criticality.SHEDDABLE);
        }
      }
    }
    assertThat(criticalityOfACall()).isEqualTo(Criticality.CRITICAL);
    assertThat(weir.contextCriticality()).isNull();
    assertThat(seenBySlot).containsExactly(Criticality.SHEDDABLE, Criticality.CRITICAL_PLUS, Criticality.SHEDDABLE,
        Criticality.SHEDDABLE, Criticality.CRITICAL);
  }

  @Test
  void theCallersCriticalityAppliesWhenNoContextGaveOneAndTheContextsWins() {
    try (Entry entry = weir.entry("r", EntryType.IN, 1, Criticality.SHEDDABLE_PLUS, null)) {
      assertThat(entry.criticality()).isEqualTo(Criticality.SHEDDABLE_PLUS);
    }
    try (ContextScope plain = weir.enterContext("web", "app")) {
      Entry entry = weir.tryEntry("r", EntryType.IN, 1, Criticality.SHEDDABLE, null);
      assertThat(entry).isNotNull();
      assertThat(entry.criticality()).as("a context without a criticality gives none").isEqualTo(Criticality.SHEDDABLE);
      entry.close();
    }
    weir.callInContext("web", "app", Criticality.CRITICAL_PLUS, () -> {
      try (Entry entry = weir.entry("r", EntryType.IN, 1, Criticality.SHEDDABLE, null)) {
        assertThat(entry.criticality()).isEqualTo(Criticality.CRITICAL_PLUS);
      }
      Entry async = weir.asyncEntry("r", EntryType.IN, 1, Criticality.SHEDDABLE, null);
      assertThat(async.criticality()).isEqualTo(Criticality.CRITICAL_PLUS);
      async.close();
      return null;
    });
  }

  @Test
  void anAsynchronousEntryKeepsTheCriticalityItWasTakenWithWhereverItCloses() throws Exception {
    Entry entry;
    try (ContextScope scope = weir.enterContext("jobs", "", Criticality.SHEDDABLE)) {
      entry = weir.asyncEntry("r", EntryType.OUT, 1);
    }
    CompletableFuture<Criticality> elsewhere = CompletableFuture.supplyAsync(() -> {
      Criticality seen = entry.criticality();
      entry.close();
      return seen;
    });
    assertThat(elsewhere.get(10, TimeUnit.SECONDS)).isEqualTo(Criticality.SHEDDABLE);
    assertThat(weir.statistics("r").totalSucceeded()).isEqualTo(1);
  }

  @Test
  void ranksOrderTheCriticalitiesFromSheddableUp() {
    assertThat(Criticality.SHEDDABLE.rank()).isZero();
    assertThat(Criticality.CRITICAL_PLUS.rank()).isEqualTo(3);
    for (Criticality criticality : Criticality.values()) {
      assertThat(Criticality.ofRank(criticality.rank())).isEqualTo(criticality);
    }
    assertThat(Criticality.ofRank(9)).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThat(Criticality.ofRank(-1)).isEqualTo(Criticality.SHEDDABLE);
  }

  @Test
  void aHotParameterRuleCannotBeAdaptive() {
    assertThatThrownBy(() -> weir.rules().load(RuleSet.empty().withParamFlow(List.of(
        ParamFlowRule.builder("r").grade(FlowGrade.ADAPTIVE).count(1).build()))))
        .isInstanceOf(InvalidRulesException.class)
        .hasMessageContaining("param-flow[0].grade: must be qps or threads; adaptive applies to flow rules only");
  }
}
