package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RejectWindowTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L); // on a bucket boundary of 1 s, 1 min and 1 h windows

  private Weir engine(FlowRule... rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(RuleSet.of(rules)).build();
  }

  @Test
  void admitsCountPerIntervalThenRefusesWithFlowException() {
    Weir weir = engine(FlowRule.qps("r", 5));
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(5);

    BlockException refused = Calls.tryOnce(weir, "r");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.resource()).isEqualTo("r");
    assertThat(refused.rule()).isEqualTo(FlowRule.qps("r", 5));
    assertThat(refused.ruleKind().tag()).isEqualTo("flow");
  }

  @Test
  void countZeroRefusesEverything() {
    Weir weir = engine(FlowRule.qps("r", 0));
    assertThat(Calls.admitted(weir, "r", 10)).isZero();
    assertThat(weir.statistics("r").totalBlocked()).isEqualTo(10);
  }

  @Test
  void permitsComeBackAsBucketsLeaveTheWindow() {
    Weir weir = engine(FlowRule.qps("r", 10));
    assertThat(Calls.admitted(weir, "r", 6)).isEqualTo(6);    // bucket 0
    ticker.advance(Duration.ofMillis(500));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(4);   // bucket 5: window holds 6 + 4
    ticker.advance(Duration.ofMillis(499));
    assertThat(Calls.admitted(weir, "r", 10)).isZero();       // still inside the same second
    ticker.advance(Duration.ofMillis(1));
    // Bucket 0 (6 admissions) has left the window; 4 remain.
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(6);
  }

  @Test
  void retryAfterIsWhenTheOldestBlockingBucketLeavesTheWindow() {
    long bucketStart = 1_000_000_000L * 1_000; // align on a bucket boundary
    ticker.set(bucketStart);
    Weir weir = engine(FlowRule.qps("r", 3));
    assertThat(Calls.admitted(weir, "r", 3)).isEqualTo(3);
    ticker.advance(Duration.ofMillis(250));

    BlockException refused = Calls.tryOnce(weir, "r");
    // The three permits were counted in the bucket [0, 100ms); it leaves the window at 1000ms.
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(750));
    ticker.advance(refused.retryAfter().minusNanos(1));
    assertThat(Calls.tryOnce(weir, "r")).isNotNull();
    ticker.advanceNanos(1);
    assertThat(Calls.tryOnce(weir, "r")).isNull();
  }

  @Test
  void intervalOfOneMinuteCountsOverTheMinute() {
    Weir weir = engine(FlowRule.builder("r").count(3).interval(Duration.ofMinutes(1)).build());
    assertThat(Calls.admitted(weir, "r", 2)).isEqualTo(2);
    ticker.advance(Duration.ofSeconds(30));
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(1);
    ticker.advance(Duration.ofSeconds(29));
    assertThat(Calls.admitted(weir, "r", 5)).isZero();
    ticker.advance(Duration.ofSeconds(1)); // the first two leave the window
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(2);
  }

  @Test
  void intervalOfOneHour() {
    Weir weir = engine(FlowRule.builder("r").count(100).interval(Duration.ofHours(1)).build());
    assertThat(Calls.admitted(weir, "r", 150)).isEqualTo(100);
    ticker.advance(Duration.ofMinutes(59));
    assertThat(Calls.admitted(weir, "r", 1)).isZero();
    ticker.advance(Duration.ofMinutes(1));
    assertThat(Calls.admitted(weir, "r", 150)).isEqualTo(100);
  }

  @Test
  void bucketedWindowAdmitsTwiceTheCountAcrossABucketEdgeAsDocumented() {
    // The worst case written in WindowLimiter: a burst at the end of bucket 0 and another as bucket 0
    // leaves the window fall inside one span shorter than the interval.
    long start = 1_000_000_000L * 2_000;
    ticker.set(start + 99_000_000L); // end of bucket [0, 100ms)
    Weir weir = engine(FlowRule.qps("r", 10));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(10);
    ticker.set(start + 1_000_000_000L); // 901 ms later
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(10);
  }

  @Test
  void acquireCountTakesSeveralPermits() {
    Weir weir = engine(FlowRule.qps("r", 5));
    try (Entry entry = weir.entry("r", EntryType.OUT, 3)) {
      assertThat(entry.acquireCount()).isEqualTo(3);
    }
    BlockException refused = null;
    try (Entry entry = weir.entry("r", EntryType.OUT, 3)) {
      // not reached
    } catch (BlockException e) {
      refused = e;
    }
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(2);
  }

  @Test
  void permitsOfAnEarlierRuleAreRefundedWhenALaterRuleRefuses() {
    Weir weir = engine(FlowRule.qps("r", 10), FlowRule.threads("r", 1));
    Entry held = weir.entry("r");
    // The qps rule admits the second call, the threads rule refuses it: its qps permit comes back.
    for (int i = 0; i < 20; i++) {
      assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    }
    held.close();
    assertThat(Calls.admitted(weir, "r", 20)).isEqualTo(9);
  }
}
