package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.weir.Calls;
import dev.weir.FakeTicker;
import dev.weir.Weir;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WarmUpTest {

  private final FakeTicker ticker = new FakeTicker();

  private static FlowRule warmUp(double count, Duration period, int coldFactor) {
    return FlowRule.builder("r").count(count).controlBehavior(ControlBehavior.WARM_UP).warmUpPeriod(period)
        .coldFactor(coldFactor).build();
  }

  /** Admissions per second over {@code seconds}, with an attempt every millisecond. */
  private List<Integer> admittedPerSecond(Weir weir, int seconds) {
    List<Integer> perSecond = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      int admitted = 0;
      for (int ms = 0; ms < 1000; ms++) {
        if (Calls.tryOnce(weir, "r") == null) {
          admitted++;
        }
        ticker.advance(Duration.ofMillis(1));
      }
      perSecond.add(admitted);
    }
    return perSecond;
  }

  @Test
  void rateRisesFromCountOverColdFactorToCountOverTheWarmUpPeriod() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(warmUp(100, Duration.ofSeconds(10), 3))).build();
    List<Integer> rate = admittedPerSecond(weir, 16);

    // Cold: spacing starts at 30 ms (count / cold-factor = 33.3/s).
    assertThat(rate.get(0)).isBetween(33, 40);
    // Draining the stored permits from full to the threshold takes exactly the warm-up period;
    // the spacing falls linearly in the permits taken, so the rate rises faster towards the end.
    for (int s = 1; s < 10; s++) {
      assertThat(rate.get(s)).as("second %d", s).isGreaterThanOrEqualTo(rate.get(s - 1));
    }
    assertThat(rate.get(4)).isBetween(40, 70);
    // Warm: the stable rate, 100 per second.
    for (int s = 11; s < 16; s++) {
      assertThat(rate.get(s)).as("second %d", s).isBetween(99, 101);
    }
  }

  @Test
  void firstSecondFollowsTheColdSpacing() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(warmUp(10, Duration.ofSeconds(20), 4))).build();
    // cold spacing = 4 x 100 ms: exactly the admissions at 0, 400, 800 ms (give or take the slope).
    List<Integer> rate = admittedPerSecond(weir, 1);
    assertThat(rate.get(0)).isEqualTo(3);
  }

  @Test
  void storedPermitsRefillWhileIdleSoTheRuleCoolsDownAgain() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(warmUp(100, Duration.ofSeconds(4), 3))).build();
    List<Integer> warm = admittedPerSecond(weir, 8);
    assertThat(warm.get(7)).isBetween(99, 101);
    ticker.advance(Duration.ofSeconds(30)); // idle for longer than the warm-up period: cold again
    List<Integer> cold = admittedPerSecond(weir, 1);
    assertThat(cold.get(0)).isBetween(33, 40);
  }

  @Test
  void coldSpacingMatchesTheModel() {
    long now = ticker.read();
    WarmUpLimiter limiter = new WarmUpLimiter(1_000_000_000L, 100, 10_000_000_000L, 3, 0,
        new EngineClock(ticker, ticker), now);
    // threshold = 10 s / (2 x 10 ms) = 500; max = 500 + 2 x 10 s / 40 ms = 1000.
    assertThat(limiter.storedPermits()).isCloseTo(1000, within(1e-9));
    assertThat(limiter.tryAcquire(1, now)).isGreaterThanOrEqualTo(0);
    // The first permit taken from full storage costs the area between 1000 and 999 stored permits:
    // spacing 30 ms at 1000 falling by 0.04 ms per permit, so 29.98 ms.
    ticker.advanceNanos(29_900_000L);
    long refusal = limiter.tryAcquire(1, ticker.read());
    assertThat(refusal).isNegative();
    assertThat(FlowLimiter.retryAfterNanos(refusal)).isEqualTo(80_000L);
    ticker.advanceNanos(80_000L);
    assertThat(limiter.tryAcquire(1, ticker.read())).isGreaterThanOrEqualTo(0);
  }

  @Test
  void warmUpQueueWaitsInsteadOfRefusing() {
    FlowRule rule = FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.WARM_UP_QUEUE)
        .warmUpPeriod(Duration.ofSeconds(10)).coldFactor(3).maxQueueingTime(Duration.ofSeconds(1)).build();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).rules(RuleSet.of(rule)).build();
    long start = ticker.read();
    for (int i = 0; i < 10; i++) {
      assertThat(Calls.tryOnce(weir, "r")).isNull();
    }
    // Cold: each call waits about 30 ms for the previous one's cost.
    assertThat(ticker.read() - start).isBetween(260_000_000L, 280_000_000L);
  }

  @Test
  void aStaleStartTimeIsNotRefusedWhenTheClockHasPassedTheSchedule() {
    long start = ticker.read();
    WarmUpLimiter limiter = new WarmUpLimiter(1_000_000_000L, 100, 10_000_000_000L, 3, 0,
        new EngineClock(ticker, ticker), start);
    assertThat(limiter.tryAcquire(1, start)).isGreaterThanOrEqualTo(0);
    ticker.advance(Duration.ofMillis(31)); // past the 29.98 ms cost of the first permit
    // This call read its start time before the first one was admitted.
    assertThat(limiter.tryAcquire(1, start)).isGreaterThanOrEqualTo(0);
  }

  @Test
  void queuedCallWithAStaleStartTimeDoesNotWaitForASlotThatHasCome() {
    long start = ticker.read();
    PacingLimiter limiter = new PacingLimiter(1_000_000_000L, 10, 0, new EngineClock(ticker, ticker), start);
    assertThat(limiter.tryAcquire(1, start)).isGreaterThanOrEqualTo(0);
    ticker.advance(Duration.ofMillis(100));
    long slept = ticker.totalSleptNanos();
    assertThat(limiter.tryAcquire(1, start)).as("max-queueing-time 0: admitted only on a fresh reading")
        .isGreaterThanOrEqualTo(0);
    assertThat(ticker.totalSleptNanos()).isEqualTo(slept);
  }
}
