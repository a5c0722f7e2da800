package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.FakeTicker;
import dev.weir.Weir;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExactModeTest {

  private static final long SECOND = 1_000_000_000L;
  private final FakeTicker ticker = new FakeTicker(SECOND * 5_000);

  private Weir engine(int count) {
    FlowRule rule = FlowRule.builder("r").count(count).exact(true).build();
    return Weir.builder().ticker(ticker).rules(RuleSet.of(rule)).build();
  }

  @Test
  void burstsAtBucketEdgesNeverExceedTheCountInAnySpan() {
    Weir weir = engine(10);
    ticker.advance(Duration.ofMillis(99));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(10);
    ticker.advance(Duration.ofMillis(901)); // where the bucketed window would admit 10 more
    assertThat(Calls.admitted(weir, "r", 10)).isZero();
    ticker.advance(Duration.ofMillis(99)); // one full interval after the burst
    assertThat(Calls.admitted(weir, "r", 20)).isEqualTo(10);
  }

  @Test
  void retryAfterIsWhenTheOldestAdmissionLeavesTheInterval() {
    Weir weir = engine(3);
    Calls.admitted(weir, "r", 1);
    ticker.advance(Duration.ofMillis(300));
    Calls.admitted(weir, "r", 2);
    ticker.advance(Duration.ofMillis(100));

    BlockException refused = Calls.tryOnce(weir, "r");
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(600));
    ticker.advance(Duration.ofMillis(600));
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    assertThat(Calls.tryOnce(weir, "r")).as("the next two are 300 ms younger").isNotNull();
  }

  @Test
  void slidingAdmissionsStayWithinEveryIntervalLongSpan() {
    Weir weir = engine(5);
    long start = ticker.read();
    long[] admittedAt = new long[1000];
    int n = 0;
    // An attempt every 37 ms for 20 s: far above the rate, at positions unrelated to any bucket.
    for (int i = 0; i < 540; i++) {
      if (Calls.tryOnce(weir, "r") == null) {
        admittedAt[n++] = ticker.read() - start;
      }
      ticker.advance(Duration.ofMillis(37));
    }
    for (int i = 5; i < n; i++) {
      assertThat(admittedAt[i] - admittedAt[i - 5]).as("admission %d and the 5th before it", i)
          .isGreaterThanOrEqualTo(SECOND);
    }
    assertThat(n).as("long-run rate close to the limit").isBetween(90, 101);
  }

  @Test
  void tickerGoingBackKeepsTheLogAndResumesFromTheNewestTime() {
    Weir weir = engine(2);
    assertThat(Calls.admitted(weir, "r", 2)).isEqualTo(2);
    ticker.advance(Duration.ofHours(-1));
    // Engine time resumes where it was: the two admissions still fill the interval (the log used to
    // be cleared here, admitting two more at once)...
    assertThat(Calls.admitted(weir, "r", 2)).isZero();
    // ...and the rule admits again one interval later on the new clock, not an hour later.
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(weir, "r", 3)).isEqualTo(2);
  }

  @Test
  void ringMemoryFollowsTheAdmissionsNotTheCount() {
    ExactLimiter limiter = new ExactLimiter(SECOND, 100_000, new EngineClock(ticker, ticker), ticker.read());
    long now = ticker.read();
    for (int i = 0; i < 1000; i++) {
      assertThat(limiter.tryAcquire(1, now)).isZero();
    }
    assertThat(limiter.capacity()).isBetween(1000, 2048);
    ticker.advance(Duration.ofSeconds(2));
    for (int i = 0; i < 10; i++) {
      limiter.tryAcquire(1, ticker.read());
      ticker.advance(Duration.ofMillis(200));
    }
    assertThat(limiter.capacity()).as("shrinks once the burst has left the interval")
        .isEqualTo(ExactLimiter.INITIAL_CAPACITY);
  }
}
