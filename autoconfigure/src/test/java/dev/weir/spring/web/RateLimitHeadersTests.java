package dev.weir.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FlowException;
import dev.weir.ParamFlowException;
import dev.weir.Quota;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@link RateLimitHeaders} writes: policy names, {@code t} in whole seconds, refusals of annotated methods. */
class RateLimitHeadersTests {

  private static Map<String, String> written(List<Quota> quotas) {
    Map<String, String> headers = new LinkedHashMap<>();
    RateLimitHeaders.write(quotas, headers::put);
    return headers;
  }

  @Test
  void aPolicyIsNamedByItsRuleElseByItsKindAndPosition() {
    Map<String, String> headers = written(List.of(
        new Quota(RuleKind.FLOW, 0, "reads:window", 3, Duration.ofSeconds(30), 2, Duration.ofSeconds(30)),
        new Quota(RuleKind.FLOW, 1, null, 100, Duration.ofMillis(1500), 100, Duration.ZERO),
        new Quota(RuleKind.PARAM_FLOW, 0, "per-key", 10, Duration.ofSeconds(1), 0, Duration.ofMillis(100))));
    assertThat(headers).containsExactly(
        Map.entry("RateLimit-Policy", "\"reads:window\";q=3;w=30, \"flow-1\";q=100;w=2, \"per-key\";q=10;w=1"),
        Map.entry("RateLimit", "\"reads:window\";r=2;t=30, \"flow-1\";r=100;t=0, \"per-key\";r=0;t=1"));
  }

  /** A {@link Quota} is a public record: one made with a name no rule can have is not written as given. */
  @Test
  void aNameThatIsNotValidNeverReachesTheHeader() {
    Map<String, String> headers = written(List.of(new Quota(RuleKind.FLOW, 2, "x\"\r\nSet-Cookie: a=b", 1,
        Duration.ofSeconds(1), 1, Duration.ZERO)));
    assertThat(headers).containsEntry("RateLimit", "\"flow-2\";r=1;t=0");
    assertThat(headers.values()).noneMatch(value -> value.contains("Set-Cookie"));
  }

  @Test
  void aRefusalOfAnAnnotatedMethodNamesItsRuleElseItsKind() {
    Map<String, String> named = new LinkedHashMap<>();
    FlowRule rule = FlowRule.builder("r").count(5).interval(Duration.ofMinutes(1)).name("per-minute").build();
    RateLimitHeaders.write(new FlowException("r", rule, 12_300_000_000L), named::put);
    assertThat(named).containsExactly(Map.entry("RateLimit-Policy", "\"per-minute\";q=5;w=60"),
        Map.entry("RateLimit", "\"per-minute\";r=0;t=13"));

    Map<String, String> unnamed = new LinkedHashMap<>();
    ParamFlowRule param = ParamFlowRule.builder("r").count(2).duration(Duration.ofSeconds(10)).build();
    RateLimitHeaders.write(new ParamFlowException("r", param, 4_000_000_000L), unnamed::put);
    assertThat(unnamed).containsExactly(Map.entry("RateLimit-Policy", "\"param-flow\";q=2;w=10"),
        Map.entry("RateLimit", "\"param-flow\";r=0;t=4"));
  }

  /** Quotas of a day and of 30 days (cluster mode counts them in Redis): w in seconds, q up to the largest count. */
  @Test
  void quotasThatSpanDaysAreWrittenInSecondsAndTheLargestCountAsItIs() {
    Map<String, String> daily = new LinkedHashMap<>();
    FlowRule day = FlowRule.builder("r").count(25_000).interval(Duration.ofDays(1)).clusterMode(true).name("daily")
        .build();
    RateLimitHeaders.write(new FlowException("r", day, Duration.ofHours(20).toNanos()), daily::put);
    assertThat(daily).containsExactly(Map.entry("RateLimit-Policy", "\"daily\";q=25000;w=86400"),
        Map.entry("RateLimit", "\"daily\";r=0;t=72000"));

    Map<String, String> monthly = new LinkedHashMap<>();
    FlowRule month = FlowRule.builder("r").count(2_147_483_647).interval(Duration.ofDays(30)).clusterMode(true)
        .name("monthly").build();
    RateLimitHeaders.write(new FlowException("r", month, Duration.ofDays(29).toNanos()), monthly::put);
    assertThat(monthly).containsExactly(Map.entry("RateLimit-Policy", "\"monthly\";q=2147483647;w=2592000"),
        Map.entry("RateLimit", "\"monthly\";r=0;t=2505600"));
  }
}
