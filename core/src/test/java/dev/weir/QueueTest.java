package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueTest {

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(double count, Duration maxQueueing) {
    FlowRule rule = FlowRule.builder("r").count(count).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(maxQueueing).build();
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(RuleSet.of(rule)).build();
  }

  /** Admission times of {@code n} back-to-back calls (the fake sleeper advances the clock). */
  private List<Long> admissionTimes(Weir weir, int n) {
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      try (Entry entry = weir.entry("r")) {
        times.add(ticker.read());
      } catch (BlockException refused) {
        times.add(null);
      }
    }
    return times;
  }

  @Test
  void spacesAdmissionsEvenlyAtIntervalOverCount() {
    Weir weir = engine(10, Duration.ofSeconds(5));
    List<Long> times = admissionTimes(weir, 20);
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 1)).isEqualTo(100_000_000L);
    }
  }

  @Test
  void pacesInNanosecondsAboveAThousandPerSecond() {
    Weir weir = engine(40_000, Duration.ofSeconds(1)); // 25 µs apart: a millisecond clock would say 0
    List<Long> times = admissionTimes(weir, 1_000);
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 1)).isEqualTo(25_000L);
    }
    assertThat(ticker.totalSleptNanos()).isEqualTo(999 * 25_000L);
  }

  @Test
  void refusesWhenTheWaitWouldExceedMaxQueueingTime() {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.builder("r").count(10)
        .controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ofMillis(250)).build())).build();
    // No sleeper that advances time: the clock stands still while calls queue up.
    // Slots: now, +100, +200 fit within 250 ms; +300 does not.
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      try (Entry entry = weir.entry("r")) {
        times.add(ticker.read());
      }
    }
    BlockException refused = Calls.tryOnce(weir, "r");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(50));
    ticker.advance(Duration.ofMillis(50));
    assertThat(Calls.tryOnce(weir, "r")).isNull();
  }

  @Test
  void idleTimeDoesNotBuildABurst() {
    Weir weir = engine(10, Duration.ofMillis(0));
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    ticker.advance(Duration.ofSeconds(10));
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    assertThat(Calls.tryOnce(weir, "r")).as("the next slot is 100 ms away").isNotNull();
  }

  @Test
  void responseTimeOfAQueuedCallStartsWhenItsSlotComes() {
    Weir weir = engine(10, Duration.ofSeconds(1));
    admissionTimes(weir, 5); // the last one waited 400 ms in the queue
    assertThat(weir.statistics("r").totalResponseTimeNanos()).isZero();
  }

  @Test
  void fractionalRatesArePacedExactly() {
    Weir weir = engine(3, Duration.ofSeconds(2)); // 333,333,333.3 ns apart
    List<Long> times = admissionTimes(weir, 4);
    assertThat(times.get(3) - times.get(0)).isBetween(999_999_998L, 1_000_000_001L);
  }
}
