package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A rules replacement is seen by a call entirely or not at all, and keeps the state it can. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RuleSwapTest {

  private final FakeTicker ticker = new FakeTicker();
  private final HoldingSlot holding = new HoldingSlot();

  @Test
  void aCallDecidesAgainstOneVersionOfTheRulesWhateverChangesMeanwhile() {
    // Both versions refuse origin "bad": the old one with a flow limit of 0 for it, the new one
    // with a deny list. A call that read the old authority rules (none) and then the new flow
    // rules (none) used to pass.
    RuleSet old = RuleSet.empty().withFlow(List.of(FlowRule.builder("r").count(0).limitApp("bad").build()));
    RuleSet next = RuleSet.empty().withAuthority(List.of(AuthorityRule.deny("r", "bad")));
    Weir weir = Weir.builder().ticker(ticker).slot(holding).rules(old).build();
    HoldingSlot.Held<Boolean> held = holding.hold(() -> weir.callInContext("web", "bad", () -> Calls.tryOnce(weir, "r") == null));
    // The held call has passed the authority slot under the old rules; now the rules change.
    weir.rules().replace("r", next);
    assertThat(held.release()).as("refused by the old flow rule it started with").isFalse();
    assertThat(weir.callInContext("web", "bad", () -> Calls.tryOnce(weir, "r"))).isInstanceOf(AuthorityException.class);
  }

  @Test
  void raisingAThreadsLimitKeepsCountingTheCallsInside() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.threads("r", 2))).build();
    List<Entry> inside = Calls.open(weir, "r", 2);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.threads("r", 3))));
    List<Entry> more = Calls.open(weir, "r", 3);
    assertThat(more.stream().filter(e -> e != null).count()).as("one more place, not three").isEqualTo(1);
    more.stream().filter(e -> e != null).forEach(Entry::close);
    inside.get(1).close();
    inside.get(0).close();
    assertThat(Calls.open(weir, "r", 4).stream().filter(e -> e != null).count())
        .as("every call that left gave its place back, under the new limit").isEqualTo(3);
  }

  @Test
  void changingARejectCountKeepsTheCurrentWindow() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 10))).build();
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(10);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.qps("r", 15))));
    assertThat(Calls.admitted(weir, "r", 20)).as("the window already holds 10").isEqualTo(5);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(weir, "r", 20)).isEqualTo(15);
  }

  @Test
  void anotherIntervalStartsAFreshWindow() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 10))).build();
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(10);
    weir.rules().update("r", current -> current.withFlow(List.of(FlowRule.builder("r").count(10).interval(Duration.ofMillis(500)).build())));
    assertThat(Calls.admitted(weir, "r", 20)).isEqualTo(10);
  }
}
