package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.FlowRuleProperties;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.rules.RuleLayer.Given;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reading the rule file: YAML and JSON, kebab-case and camelCase keys, and problems named with the
 * file, the line and the same field and message as at start.
 */
class RuleFileReadTests {

  private final Weir weir = Weir.builder().build();

  @AfterEach
  void close() {
    weir.close();
  }

  private RuleSource.Read read(String file, String content) {
    return new RuleFile(Path.of("/etc/weir", file)).read(content.getBytes(StandardCharsets.UTF_8), weir.rules());
  }

  @Test
  void readsTheListsOfApplicationYmlWithKebabOrCamelCaseKeys() {
    RuleSource.Read read = read("rules.yml", """
        flow:
          - resource: a
            count: 5
            control-behavior: queue
            max-queueing-time: 200ms
          - resource: b
            count: 2
            controlBehavior: WARM_UP
            warmUpPeriod: PT20S
        degrade:
          - resource: a
            strategy: error-count
            threshold: 3
        system:
          max-qps: 100
        cleared:
          c: [flow, paramFlow]
        """);
    assertThat(read.violations()).isEmpty();
    RuleLayer layer = read.layer();
    assertThat(layer.rules().flow()).hasSize(2);
    assertThat(layer.rules().flow().get(0).maxQueueingTime()).isEqualTo(Duration.ofMillis(200));
    assertThat(layer.rules().flow().get(1).controlBehavior()).isEqualTo(ControlBehavior.WARM_UP);
    assertThat(layer.rules().flow().get(1).warmUpPeriod()).isEqualTo(Duration.ofSeconds(20));
    assertThat(layer.rules().degrade()).singleElement()
        .satisfies(rule -> assertThat(rule.strategy()).isEqualTo(DegradeStrategy.ERROR_COUNT));
    assertThat(layer.system().maxQps()).isEqualTo(100.0);
    assertThat(layer.cleared()).containsExactlyInAnyOrder(new Given("c", RuleKind.FLOW),
        new Given("c", RuleKind.PARAM_FLOW));
  }

  @Test
  void readsJsonIndentedWithTabs() {
    RuleSource.Read read = read("rules.json", "{\n\t\"flow\": [\n\t\t{\"resource\": \"a\", \"count\": 5,"
        + " \"maxQueueingTime\": \"1s\", \"controlBehavior\": \"queue\"}\n\t],\n\t\"authority\": [{\"resource\": \"b\","
        + " \"strategy\": \"black\", \"limitApp\": [\"x\", \"y\"]}, {\"resource\": \"c\", \"limitApp\": [\"x\"],"
        + " \"allowNoOrigin\": true}]\n}\n");
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().rules().flow()).singleElement()
        .satisfies(rule -> assertThat(rule.maxQueueingTime()).isEqualTo(Duration.ofSeconds(1)));
    assertThat(read.layer().rules().authority()).satisfiesExactly(
        rule -> assertThat(rule.limitApp()).containsExactly("x", "y"),
        rule -> assertThat(rule.allowNoOrigin()).isTrue());
  }

  @Test
  void aNameIsReadAndABadOneIsNamedWithItsLine() {
    RuleSource.Read read = read("rules.yml", """
        flow:
          - resource: a
            name: a:per-second
            count: 5
        param-flow:
          - resource: a
            count: 1
            name: "two\\nlines"
        """);
    assertThat(read.violations()).singleElement().satisfies(violation -> {
      assertThat(violation.field()).isEqualTo("file:/etc/weir/rules.yml:8 param-flow[0].name");
      assertThat(violation.message()).contains("U+000A at position 3").doesNotContain("\n");
    });
    RuleSource.Read good = read("rules.yml", "flow:\n  - resource: a\n    name: a:per-second\n    count: 5\n");
    assertThat(good.layer().rules().flow()).singleElement()
        .satisfies(rule -> assertThat(rule.name()).isEqualTo("a:per-second"));
  }

  @Test
  void anEmptyFileGivesNothing() {
    RuleSource.Read read = read("rules.yml", "");
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().given()).isEmpty();
  }

  @Test
  void problemsCarryTheFileTheLineAndTheMessageOfTheStartValidator() {
    RuleSource.Read read = read("rules.yml", """
        flow:
          - resource: a
            count: -5
          - resource: b
            grade: qps
        """);
    FlowRuleProperties negative = new FlowRuleProperties();
    negative.setResource("a");
    negative.setCount(-5.0);
    FlowRuleProperties missing = new FlowRuleProperties();
    missing.setResource("b");
    RuleLists same = new RuleLists(List.of(negative, missing), List.of(), List.of(), List.of());
    List<RuleViolation> atStart = WeirPropertiesValidator.validateRules(same, same.toRuleSet(), weir.rules());
    assertThat(atStart).hasSize(2);
    assertThat(atStart).map(RuleViolation::field).containsExactly("flow[1].count", "flow[0].count");
    assertThat(read.violations()).containsExactly(
        new RuleViolation("file:/etc/weir/rules.yml:4 flow[1].count", atStart.get(0).message()),
        new RuleViolation("file:/etc/weir/rules.yml:3 flow[0].count", atStart.get(1).message()));
  }

  @Test
  void fieldsNoRuleHasAndValuesThatDoNotBindAreNamedAsWritten() {
    RuleSource.Read unknown = read("rules.yml", """
        flow:
          - resource: a
            count: 5
            maxQueueingTim: 1s
        """);
    assertThat(unknown.violations()).containsExactly(new RuleViolation(
        "file:/etc/weir/rules.yml:4 flow[0].maxQueueingTim", "no rule of this kind has this field"));
    RuleSource.Read badDuration = read("rules.json", "{\"flow\": [\n {\"resource\": \"a\", \"count\": 1,\n"
        + "  \"interval\": \"soon\"}]}");
    assertThat(badDuration.violations()).containsExactly(new RuleViolation("file:/etc/weir/rules.json:3 flow[0].interval",
        "must be a duration such as 500ms, 10s, 1m, 1h or PT1H, was 'soon'"));
    RuleSource.Read topLevel = read("rules.yml", "flw:\n  - resource: a\n");
    assertThat(topLevel.violations()).singleElement()
        .satisfies(v -> assertThat(v.field()).isEqualTo("file:/etc/weir/rules.yml:2 flw[0].resource"));
  }

  @Test
  void notYamlAtAllIsOneProblemWithWhereTheParserStopped() {
    RuleSource.Read read = read("rules.yml", "flow:\n  - resource: a\n   count: [\n");
    assertThat(read.violations()).singleElement().satisfies(v -> {
      assertThat(v.field()).isEqualTo("file:/etc/weir/rules.yml");
      assertThat(v.message()).startsWith("is not valid YAML").contains("line");
    });
  }

  /**
   * A file of many bad rules is read no further than {@code InputLimits.MAX_PROBLEMS} problems (16,000
   * rules with an unknown field each took 5 s and listed 48,000 problems, found by the fuzz tests).
   */
  @Test
  void manyProblemsAreListedUpToTheBoundAndReadingStopsThere() {
    StringBuilder yaml = new StringBuilder("flow:\n");
    for (int i = 0; i < 16_000; i++) {
      yaml.append("  - resource: r").append(i).append("\n    count: 1\n    unknown: x\n");
    }
    RuleSource.Read read = read("rules.yml", yaml.toString());
    assertThat(read.violations()).hasSize(101);
    assertThat(read.violations().get(100).message()).contains("more problems than the 100 listed");
  }

  /** Content the loader fails on deep inside (a YAML tag of a value no rule holds) is refused without Java internals. */
  @Test
  void aValueOfATagNoRuleHoldsIsRefusedInPlainWords() {
    RuleSource.Read read = read("rules.yml", "flow: !!binary aGVsbG8=\n");
    assertThat(read.violations()).singleElement().satisfies(violation -> {
      assertThat(violation.message()).doesNotContain("class [B").doesNotContain("java.lang");
    });
  }
}
