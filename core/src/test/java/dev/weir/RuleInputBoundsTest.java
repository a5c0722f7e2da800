package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rules are untrusted input (a file, the endpoint): the names they give are bounded and printable,
 * and they cannot make the engine track more resources than {@code maxResources}.
 */
class RuleInputBoundsTest {

  private final Weir weir = Weir.builder().ticker(new FakeTicker()).maxResources(3).build();

  private List<String> fields(RuleSet rules) {
    return weir.rules().validate(rules).stream().map(RuleViolation::field).toList();
  }

  @Test
  void namesAreBoundedAndHaveNoControlCharacters() {
    String long513 = "r".repeat(513);
    assertThat(fields(RuleSet.of(FlowRule.qps(long513, 1)))).containsExactly("flow[0].resource");
    assertThat(fields(RuleSet.of(FlowRule.qps("r".repeat(512), 1)))).isEmpty();
    assertThat(fields(RuleSet.of(FlowRule.qps("orders\r\nINFO forged log line", 1)))).containsExactly("flow[0].resource");
    assertThat(fields(RuleSet.of(FlowRule.builder("r").count(1).limitApp("app\u0000").build())))
        .containsExactly("flow[0].limit-app");
    assertThat(fields(RuleSet.of(FlowRule.builder("r").count(1).strategy(FlowStrategy.CHAIN)
        .refResource("ctx\n").build()))).containsExactly("flow[0].ref-resource");
    assertThat(fields(RuleSet.of(new AuthorityRule("r", AuthorityStrategy.WHITE, List.of("ok", "bad\u001b[31m")))))
        .containsExactly("authority[0].limit-app[1]");
    assertThat(fields(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").count(1)
        .exceptions(List.of(new ParamFlowItem("v".repeat(600), 2))).build()))))
        .containsExactly("param-flow[0].exceptions[0].value");
    assertThat(weir.rules().validate(RuleSet.of(FlowRule.qps("a\tb", 1))).get(0).message())
        .contains("control character (code 9) at position 1");
  }

  @Test
  void rulesCannotMakeTheEngineTrackMoreResourcesThanItsBound() {
    for (String resource : List.of("a", "b", "c")) {
      weir.rules().replace(resource, RuleSet.of(FlowRule.qps(resource, 1)));
    }
    assertThatThrownBy(() -> weir.rules().replace("d", RuleSet.of(FlowRule.qps("d", 1))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("at most 3 (max-resources)");
    assertThatThrownBy(() -> weir.rules().update("d", current -> RuleSet.of(FlowRule.qps("d", 1))))
        .isInstanceOf(InvalidRulesException.class);
    assertThat(weir.rules().rules("d").isEmpty()).isTrue();
    weir.rules().replace("a", RuleSet.of(FlowRule.qps("a", 2))); // a resource with rules may change them
    weir.rules().replace("c", RuleSet.empty());
    weir.rules().replace("d", RuleSet.of(FlowRule.qps("d", 1)));
    assertThat(weir.rules().rulesByResource()).containsOnlyKeys("a", "b", "d");
  }

  @Test
  void aChangeOfSeveralResourcesCountsWhatItAddsAndRemoves() {
    weir.rules().replace("a", RuleSet.of(FlowRule.qps("a", 1)));
    weir.rules().replace("b", RuleSet.of(FlowRule.qps("b", 1)));
    assertThatThrownBy(() -> weir.rules().update(List.of("c", "d"),
        (resource, current) -> RuleSet.of(FlowRule.qps(resource, 1))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("d resource");
    assertThat(weir.rules().rulesByResource()).as("nothing changed").containsOnlyKeys("a", "b");
    weir.rules().update(List.of("a", "c", "d"),
        (resource, current) -> resource.equals("a") ? RuleSet.empty() : RuleSet.of(FlowRule.qps(resource, 1)));
    assertThat(weir.rules().rulesByResource()).containsOnlyKeys("b", "c", "d");
    assertThatThrownBy(() -> weir.rules().load(RuleSet.of(FlowRule.qps("a", 1), FlowRule.qps("b", 1),
        FlowRule.qps("c", 1), FlowRule.qps("d", 1)))).isInstanceOf(InvalidRulesException.class)
        .hasMessageContaining("rules for 4 resources");
  }
}
