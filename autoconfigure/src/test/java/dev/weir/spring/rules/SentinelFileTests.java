package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleViolation;
import dev.weir.rule.SystemRule;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Sentinel's JSON rule files (src/test/resources/sentinel, in Sentinel's format) converted to
 * Weir's rules field by field, and what has no Weir equivalent refused with Sentinel's field names.
 */
class SentinelFileTests {

  private static final Path AT = Path.of("/etc/sentinel/rules.json");

  private final Weir weir = Weir.builder().build();

  @AfterEach
  void close() {
    weir.close();
  }

  private RuleSource.Read read(SentinelFile.Kind kind, String json) {
    return new SentinelFile(kind, AT).read(json.getBytes(StandardCharsets.UTF_8), weir.rules());
  }

  private RuleSource.Read resource(SentinelFile.Kind kind, String name) throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/sentinel/" + name)) {
      return new SentinelFile(kind, AT).read(in.readAllBytes(), weir.rules());
    }
  }

  @Test
  void flowRules() throws IOException {
    RuleSource.Read read = resource(SentinelFile.Kind.FLOW, "flow-rules.json");
    assertThat(read.violations()).isEmpty();
    List<FlowRule> flow = read.layer().rules().flow();
    assertThat(flow).hasSize(5);
    assertThat(flow.get(0)).isEqualTo(FlowRule.builder("checkout").count(12).build());
    assertThat(flow.get(1)).isEqualTo(FlowRule.builder("search").count(40).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofSeconds(20)).build());
    assertThat(flow.get(2)).isEqualTo(FlowRule.builder("export").count(5).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofMillis(800)).build());
    assertThat(flow.get(3)).isEqualTo(FlowRule.builder("report").count(3).grade(FlowGrade.THREADS)
        .strategy(FlowStrategy.RELATED).refResource("checkout").build());
    assertThat(flow.get(4)).isEqualTo(FlowRule.builder("partnerApi").count(2).limitApp("partner-a")
        .strategy(FlowStrategy.CHAIN).refResource("web_entry").build());
  }

  @Test
  void degradeRules() throws IOException {
    RuleSource.Read read = resource(SentinelFile.Kind.DEGRADE, "degrade-rules.json");
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().rules().degrade()).containsExactly(
        new DegradeRule("payment", DegradeStrategy.SLOW_RATIO, 0.4, Duration.ofMillis(250), 8, Duration.ofSeconds(2),
            Duration.ofSeconds(15)),
        new DegradeRule("inventory", DegradeStrategy.ERROR_RATIO, 0.3, null, 5, Duration.ofSeconds(1),
            Duration.ofSeconds(5)),
        new DegradeRule("shipping", DegradeStrategy.ERROR_COUNT, 6, null, 5, Duration.ofSeconds(1),
            Duration.ofSeconds(30)));
  }

  @Test
  void paramFlowRulesAlsoAsTheDashboardWrapsThem() throws IOException {
    RuleSource.Read read = resource(SentinelFile.Kind.PARAM_FLOW, "param-flow-rules.json");
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().rules().paramFlow()).containsExactly(
        new ParamFlowRule("getProduct", 0, FlowGrade.QPS, 4, Duration.ofSeconds(2), 1, ControlBehavior.REJECT,
            Duration.ZERO, List.of(new ParamFlowItem("42", 20), new ParamFlowItem("vip", 50))),
        new ParamFlowRule("getPrice", 1, FlowGrade.QPS, 3, Duration.ofSeconds(1), 0, ControlBehavior.QUEUE,
            Duration.ofMillis(300), List.of()));
  }

  @Test
  void authorityRulesSplitLimitAppAtCommas() throws IOException {
    RuleSource.Read read = resource(SentinelFile.Kind.AUTHORITY, "authority-rules.json");
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().rules().authority()).satisfiesExactly(
        rule -> {
          assertThat(rule.resource()).isEqualTo("adminOp");
          assertThat(rule.strategy()).isEqualTo(AuthorityStrategy.WHITE);
          assertThat(rule.limitApp()).containsExactly("ops", "backoffice");
          assertThat(rule.allowNoOrigin()).as("Sentinel lets a call without an origin through").isTrue();
        },
        rule -> {
          assertThat(rule.resource()).isEqualTo("publicOp");
          assertThat(rule.strategy()).isEqualTo(AuthorityStrategy.BLACK);
          assertThat(rule.limitApp()).containsExactly("crawler");
        });
  }

  @Test
  void systemRulesTakeTheLowestOfEachThresholdSetAsSentinelDoes() throws IOException {
    RuleSource.Read read = resource(SentinelFile.Kind.SYSTEM, "system-rules.json");
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().system()).isEqualTo(new SystemRule(700.0, 300, Duration.ofMillis(120), 6.5, 0.85));
  }

  @Test
  void paramValuesAreWrittenAsWeirComparesThem() {
    RuleSource.Read read = read(SentinelFile.Kind.PARAM_FLOW, "[{\"resource\": \"r\", \"paramIdx\": 0, \"count\": 1,"
        + " \"paramFlowItemList\": [{\"object\": \"007\", \"count\": 2, \"classType\": \"long\"},"
        + " {\"object\": \"1\", \"count\": 3, \"classType\": \"double\"}]}]");
    assertThat(read.layer().rules().paramFlow().get(0).exceptions()).map(ParamFlowItem::value)
        .containsExactly("7", "1.0");
  }

  @Test
  void whatWeirCannotDoIsRefusedWithSentinelsFieldNamesAndLines() {
    RuleSource.Read flow = read(SentinelFile.Kind.FLOW, """
        [
          {
            "resource": "a",
            "count": 10,
            "controlBehavior": 5
          },
          {
            "resource": "b",
            "count": 10,
            "clusterMode": true,
            "clusterConfig": {"flowId": 1, "thresholdType": 0}
          },
          {
            "resource": "c",
            "count": 10,
            "regex": true,
            "cunt": 3
          }
        ]""");
    assertThat(flow.violations()).map(RuleViolation::field).containsExactly(
        "sentinel:flow-file /etc/sentinel/rules.json:5 [0].controlBehavior",
        "sentinel:flow-file /etc/sentinel/rules.json:11 [1].clusterConfig.thresholdType",
        "sentinel:flow-file /etc/sentinel/rules.json:17 [2].cunt",
        "sentinel:flow-file /etc/sentinel/rules.json:16 [2].regex",
        "sentinel:flow-file /etc/sentinel/rules.json:10 [1].clusterMode");
    assertThat(flow.violations().get(0).message())
        .isEqualTo("must be 0 (reject), 1 (warm up), 2 (rate limiter) or 3 (warm up + rate limiter), was 5");
    assertThat(flow.violations().get(1).message()).startsWith("must be 1 (global)");
    assertThat(flow.violations().get(4).message()).as("this engine has no cluster client").contains("cluster client");

    RuleSource.Read degrade = read(SentinelFile.Kind.DEGRADE,
        "[{\"resource\": \"a\", \"grade\": 1, \"count\": 0.5, \"timeWindow\": 10, \"slowRatioThreshold\": 0.2}]");
    assertThat(degrade.violations()).singleElement().satisfies(v -> {
      assertThat(v.field()).isEqualTo("sentinel:degrade-file /etc/sentinel/rules.json:1 [0].slowRatioThreshold");
      assertThat(v.message()).startsWith("applies to grade 0 (slow request ratio) only");
    });
  }

  @Test
  void weirsValidatorJudgesTheConvertedRulesNamingSentinelsFields() {
    RuleSource.Read read = read(SentinelFile.Kind.FLOW, "[\n {\"resource\": \"a\", \"grade\": 1,\n  \"count\": -3}\n]");
    assertThat(read.violations()).singleElement().satisfies(v -> {
      assertThat(v.field()).isEqualTo("sentinel:flow-file /etc/sentinel/rules.json:3 [0].count");
      assertThat(v.message()).isEqualTo("must be a number >= 0, was -3.0");
    });
    RuleSource.Read degrade = read(SentinelFile.Kind.DEGRADE,
        "[{\"resource\": \"a\", \"grade\": 1, \"count\": 1.5, \"timeWindow\": 10}]");
    assertThat(degrade.violations()).map(RuleViolation::field)
        .containsExactly("sentinel:degrade-file /etc/sentinel/rules.json:1 [0].count")
        .as("Weir's threshold of a ratio is Sentinel's count; the validator's field is mapped back");
  }

  @Test
  void notAnArrayIsRefused() {
    assertThat(read(SentinelFile.Kind.FLOW, "{\"resource\": \"a\"}").violations()).singleElement()
        .satisfies(v -> assertThat(v.message()).isEqualTo("must be a JSON array of Sentinel flow rules, [] for none"));
    assertThat(read(SentinelFile.Kind.FLOW, "[]").layer().given()).isEmpty();
  }
}
