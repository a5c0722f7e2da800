package dev.weir.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.Quota;
import dev.weir.Weir;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The optional {@code name} of flow and hot-parameter rules: what a name may hold (it is sent in
 * HTTP headers), that it is unique among a resource's rate rules, that it reaches the quotas and
 * refusals, and that changing only the name keeps the rule's state.
 */
class RuleNameTest {

  private final FakeTicker ticker = new FakeTicker();

  private static FlowRule named(String name) {
    return FlowRule.builder("r").count(3).name(name).build();
  }

  @Test
  void aNameIsShortAndOfASafeAlphabet() {
    String longest = "a".repeat(RuleNames.MAX_LENGTH - 9) + "Z0._:-x9y";
    assertThat(FlowRuleValidator.validate(named(longest))).isEmpty();
    assertThat(FlowRuleValidator.validate(named("orders:per-key_v2.1"))).isEmpty();
    for (String bad : List.of("a\r\nSet-Cookie: x=1", "with space", "quote\"d", "back\\slash", "t\tab", "caf\u00e9",
        "semi;colon", "comma,", "a".repeat(RuleNames.MAX_LENGTH + 1), "flow-0", "param-flow-12", "\u0000")) {
      List<RuleViolation> violations = FlowRuleValidator.validate(named(bad));
      assertThat(violations).as(bad).extracting(RuleViolation::field).containsExactly("name");
      assertThat(violations.get(0).message()).as("no line break of the value reaches a message")
          .doesNotContain("\r", "\n", "\t", "\u0000");
      assertThat(RuleNames.isValid(bad)).isFalse();
    }
    assertThat(FlowRuleValidator.validate(named("a\nb")).get(0).message()).contains("U+000A at position 1");
    assertThat(FlowRuleValidator.validate(named("x".repeat(65))).get(0).message()).contains("was 65 characters");
    assertThat(RuleNames.isValid("flow-x")).as("only flow-<number> is taken").isTrue();
    assertThat(ParamFlowRuleValidator.validate(List.of(ParamFlowRule.builder("r").count(1).name("a b").build())))
        .extracting(RuleViolation::field).containsExactly("[0].name");
  }

  @Test
  void aBlankNameIsNoName() {
    assertThat(named("  ").name()).isNull();
    assertThat(named("").name()).isNull();
    assertThat(ParamFlowRule.builder("r").count(1).name(" ").build().name()).isNull();
    assertThat(FlowRule.qps("r", 3).withName("\t")).isEqualTo(FlowRule.qps("r", 3));
  }

  @Test
  void theRateRulesOfOneResourceHaveNamesOfTheirOwn() {
    RuleSet clash = new RuleSet(List.of(named("api"), FlowRule.builder("other").count(1).name("api").build()),
        List.of(), List.of(ParamFlowRule.builder("r").count(1).name("api").build()), List.of());
    assertThat(clash.validate()).extracting(RuleViolation::field).containsExactly("param-flow[0].name");
    assertThat(clash.validate().get(0).message()).contains("flow[0]");
    assertThat(RuleSet.of(named("a"), named("a").toBuilder().count(5).build()).validate())
        .extracting(RuleViolation::field).containsExactly("flow[1].name");
    assertThatThrownBy(() -> Weir.builder().rules(RuleSet.of(named("bad name"))).build())
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("flow[0].name");
  }

  @Test
  void quotasAndRefusalsCarryTheName() {
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).rules(new RuleSet(List.of(named("per-second"),
        FlowRule.qps("r", 10)), List.of(), List.of(ParamFlowRule.builder("r").count(2).name("per-key").build()),
        List.of())).build();
    assertThat(weir.quotas("r", "k")).extracting(Quota::name).containsExactly("per-second", null, "per-key");
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(3);
    assertThat(((FlowRule) Calls.tryOnce(weir, "r").rule()).name()).isEqualTo("per-second");
  }

  /** A name is not a limit: renaming a rule, alone or with its shadow mode, keeps what it counted. */
  @Test
  void renamingKeepsTheStateOfEveryKindOfLimiter() {
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).build();
    FlowRule window = FlowRule.builder("window").count(3).interval(Duration.ofMinutes(1)).build();
    FlowRule exact = FlowRule.builder("exact").count(3).interval(Duration.ofMinutes(1)).exact(true).build();
    FlowRule threads = FlowRule.builder("threads").grade(FlowGrade.THREADS).count(2).build();
    ParamFlowRule bucket = ParamFlowRule.builder("bucket").count(2).duration(Duration.ofMinutes(1)).build();
    weir.rules().replace("window", RuleSet.of(window));
    weir.rules().replace("exact", RuleSet.of(exact));
    weir.rules().replace("threads", RuleSet.of(threads));
    weir.rules().replace("bucket", RuleSet.of(bucket));
    assertThat(Calls.admitted(weir, "window", 3)).isEqualTo(3);
    assertThat(Calls.admitted(weir, "exact", 3)).isEqualTo(3);
    List<Entry> inside = List.of(weir.asyncEntry("threads", EntryType.OUT, 1), weir.asyncEntry("threads", EntryType.OUT, 1));
    assertThat(bucketCalls(weir, 2)).isEqualTo(2);

    weir.rules().replace("window", RuleSet.of(window.withName("w")));
    weir.rules().replace("exact", RuleSet.of(exact.withName("e")));
    weir.rules().replace("threads", RuleSet.of(threads.withName("t")));
    weir.rules().replace("bucket", RuleSet.of(bucket.withName("b")));
    assertThat(weir.rules().rules("window").flow()).containsExactly(window.withName("w"));
    assertThat(Calls.admitted(weir, "window", 1)).as("the window still holds 3").isZero();
    assertThat(Calls.admitted(weir, "exact", 1)).as("the ring still holds 3").isZero();
    assertThat(Calls.admitted(weir, "threads", 1)).as("2 calls are still inside").isZero();
    assertThat(bucketCalls(weir, 1)).as("the key's bucket is still empty").isZero();

    weir.rules().replace("window", RuleSet.of(window.toBuilder().count(4).name("w4").build()));
    assertThat(Calls.admitted(weir, "window", 5)).as("count and name changed: the window carries over").isEqualTo(1);
    weir.rules().replace("window", RuleSet.of(window.withName("w").withShadow(true)));
    assertThat(weir.statistics("window").totalShadowBlocked(RuleKind.FLOW)).isZero();
    assertThat(Calls.admitted(weir, "window", 2)).as("in shadow mode: admitted, counted as refusals").isEqualTo(2);
    assertThat(weir.statistics("window").totalShadowBlocked(RuleKind.FLOW)).isEqualTo(2);
    inside.forEach(Entry::close);
  }

  private static int bucketCalls(Weir weir, int attempts) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      try (Entry entry = weir.entry("bucket", EntryType.OUT, 1, "key")) {
        admitted++;
      } catch (BlockException refused) {
        // counted by the caller
      }
    }
    return admitted;
  }
}
