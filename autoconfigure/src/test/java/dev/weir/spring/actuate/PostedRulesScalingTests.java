package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.CpuTime;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reading a posted body costs time linear in the number of rules. Before rules were bound one by
 * one, the binder's look-ups over one source holding every rule made it quadratic: 2,000 flow rules
 * took 5 s, 4,000 more than 20 s.
 *
 * <p>The assertion compares two sizes of the same body, by the least thread CPU time of four runs
 * each, run in turn ({@link CpuTime#ratio}): four times the rules must cost less than ten times the
 * time. Linear reading gives about 4 (3 to 5 measured), quadratic 16 (15.4 and 15.6 measured on the
 * old code); a ratio, unlike a time, does not depend on how fast or busy the machine is, and the
 * margin on both sides absorbs what noise remains (8.5 was seen once, with a load of 13 on two
 * cores, before the runs were taken in turn).
 */
@Timeout(120)
class PostedRulesScalingTests {

  static String flowRules(int n) {
    StringJoiner rules = new StringJoiner(",", "{\"flow\":[", "]}");
    for (int i = 0; i < n; i++) {
      rules.add("{\"count\":" + (i + 1) + ",\"interval\":\"1s\",\"controlBehavior\":\"reject\",\"limitApp\":\"o" + i
          + "\"}");
    }
    return rules.toString();
  }

  static String hotParameterRules(int n) {
    StringJoiner rules = new StringJoiner(",", "{\"paramFlow\":[", "]}");
    for (int i = 0; i < n; i++) {
      rules.add("{\"paramIndex\":0,\"count\":5,\"exceptions\":[{\"value\":\"v" + i + "\",\"count\":9}]}");
    }
    return rules.toString();
  }

  private static double ratio(String small, String large) {
    return CpuTime.ratio(4, () -> assertThat(PostedRules.read("r", small).bindingViolations()).isEmpty(),
        () -> assertThat(PostedRules.read("r", large).bindingViolations()).isEmpty());
  }

  @Test
  void fourTimesTheFlowRulesCostLessThanTenTimesTheTime() {
    assertThat(ratio(flowRules(500), flowRules(2000))).isLessThan(10);
  }

  @Test
  void fourTimesTheHotParameterRulesWithNestedListsCostLessThanTenTimesTheTime() {
    assertThat(ratio(hotParameterRules(500), hotParameterRules(2000))).isLessThan(10);
  }
}
