package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.test.CpuTime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reading the rule file and a Sentinel file costs time linear in the number of rules. Before rules
 * were bound one by one, a rule file of hot-parameter rules with exceptions was quadratic (the
 * binder scanned the whole file for each rule's list): 2,000 rules 0.75 s, 4,000 rules 2.5 s, and
 * 8,000 rules took 13 times as long as 2,000. The assertion is a ratio of the least thread CPU times
 * of two sizes, as in {@code PostedRulesScalingTests}: four times the rules, less than ten times
 * the time. (Sentinel files were read linearly already; their test keeps them so.)
 */
@Timeout(120)
class RuleFileScalingTests {

  private final Weir weir = Weir.builder().build();

  @AfterEach
  void close() {
    weir.close();
  }

  static byte[] hotParameterRules(int n) {
    StringBuilder yaml = new StringBuilder("param-flow:\n");
    for (int i = 0; i < n; i++) {
      yaml.append("  - resource: r").append(i).append("\n    count: 5\n    param-index: 0\n    exceptions:\n")
          .append("      - value: a\n        count: 3\n");
    }
    return yaml.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] sentinelFlowRules(int n) {
    StringBuilder json = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      json.append(i == 0 ? "" : ",").append("{\"resource\":\"r").append(i).append("\",\"count\":").append(i + 1)
          .append(",\"grade\":1,\"controlBehavior\":0}");
    }
    return json.append("]").toString().getBytes(StandardCharsets.UTF_8);
  }

  private double ratio(RuleSource source, byte[] small, byte[] large) {
    return CpuTime.ratio(4, () -> assertThat(source.read(small, weir.rules()).violations()).isEmpty(),
        () -> assertThat(source.read(large, weir.rules()).violations()).isEmpty());
  }

  @Test
  void fourTimesTheRulesOfARuleFileCostLessThanTenTimesTheTime() {
    // Larger than the endpoint's test: the file's old quadratic term only dominated from a few thousand rules.
    assertThat(ratio(new RuleFile(Path.of("/etc/weir/rules.yml")), hotParameterRules(2000),
        hotParameterRules(8000))).isLessThan(10);
  }

  @Test
  void fourTimesTheRulesOfASentinelFileCostLessThanTenTimesTheTime() {
    SentinelFile file = new SentinelFile(SentinelFile.Kind.FLOW, Path.of("/etc/sentinel/flow.json"));
    assertThat(ratio(file, sentinelFlowRules(2000), sentinelFlowRules(8000))).isLessThan(10);
  }
}
