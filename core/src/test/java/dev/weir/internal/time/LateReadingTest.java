package dev.weir.internal.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.HoldingSlot;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Deterministic interleavings of the engine's time model (see {@link EngineClock}): one call reads
 * the clock and is held (by {@link HoldingSlot}, after the reading and before every rule) while the
 * test moves time on and makes other calls; then the held call reaches the limiters with an old
 * reading. Each test asserts the rule's own bound over everything admitted. Every case here admitted
 * more than its rule before the time model: the numbers in the comments are what the old code let
 * through.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class LateReadingTest {

  private static final long MILLIS = 1_000_000L;

  private final FakeTicker ticker = new FakeTicker();
  private final HoldingSlot holding = new HoldingSlot();

  private Weir engine(FlowRule rule) {
    return Weir.builder().ticker(ticker).sleeper(ticker).slot(holding).rules(RuleSet.of(rule)).build();
  }

  private Weir engine(ParamFlowRule rule) {
    return Weir.builder().ticker(ticker).sleeper(ticker).slot(holding)
        .rules(RuleSet.empty().withParamFlow(List.of(rule))).build();
  }

  private static int admitted(Weir weir, int attempts, Object... args) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      admitted += tryOnce(weir, args) ? 1 : 0;
    }
    return admitted;
  }

  private static boolean tryOnce(Weir weir, Object... args) {
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, args)) {
      return true;
    } catch (BlockException refused) {
      return false;
    }
  }

  @Test
  void exactCountsALateCallAtThePresent() {
    // Old code: the late reading cleared the ring, so 5 + 1 + 4 = 10 passed within 1 ms.
    Weir weir = engine(FlowRule.builder("r").count(5).exact(true).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    ticker.advance(Duration.ofMillis(1));
    int admitted = admitted(weir, 5);
    admitted += late.release() ? 1 : 0;
    admitted += admitted(weir, 4);
    assertThat(admitted).isEqualTo(5);
  }

  @Test
  void windowNeverLetsALateCallReplaceTheNewestBucket() {
    // Old code: a reading one interval old re-installed its own bucket over the newest one, so the
    // newest bucket took 100 more: 201 admitted in 1 ms for a count of 100.
    Weir weir = engine(FlowRule.builder("r").count(100).interval(Duration.ofMillis(10)).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    ticker.advance(Duration.ofMillis(10));
    int admitted = admitted(weir, 100);
    admitted += late.release() ? 1 : 0;
    admitted += admitted(weir, 100);
    assertThat(admitted).isEqualTo(100);
  }

  @Test
  void windowDecidesEveryLateReadingInBoundedStepsAndWithinTheCount() {
    // Old code: a reading one or two intervals behind busy buckets looped for ever.
    Weir weir = engine(FlowRule.builder("r").count(100).interval(Duration.ofMillis(10)).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    int admitted = 0;
    for (int i = 0; i < 15; i++) {
      ticker.advance(Duration.ofMillis(1));
      admitted += admitted(weir, 10);
    }
    assertThat(admitted).isEqualTo(150);
    boolean lateAdmitted = late.release(); // would hang before; the class timeout catches it
    int inNewestWindow = admitted(weir, 100) + (lateAdmitted ? 1 : 0);
    // The window ending at the present holds the last 10 buckets' 100; nothing fits until one leaves.
    assertThat(inNewestWindow).isZero();
  }

  @Test
  void queueSchedulesALateCallAfterTheNewestSlot() {
    // Old code: a reading more than max-queueing-time + one spacing behind the schedule restarted
    // it at the late reading, so two calls passed 0 ms apart for a spacing of 100 ms.
    Weir weir = engine(FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ZERO).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    ticker.advance(Duration.ofSeconds(1));
    assertThat(tryOnce(weir)).isTrue();
    long admittedAt = ticker.read();
    boolean lateAdmitted = late.release();
    boolean next = tryOnce(weir);
    assertThat(ticker.read()).isEqualTo(admittedAt);
    assertThat(lateAdmitted || next).as("nothing else within the 100 ms spacing").isFalse();
    ticker.advance(Duration.ofMillis(100));
    assertThat(tryOnce(weir)).isTrue();
  }

  @Test
  void warmUpSpacesALateCallLikeAnyOther() {
    Weir weir = engine(FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofSeconds(2)).coldFactor(3).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    ticker.advance(Duration.ofSeconds(1));
    assertThat(tryOnce(weir)).isTrue();
    boolean lateAdmitted = late.release();
    // Cold: the spacing after the first call is at least the stable 100 ms.
    assertThat(lateAdmitted).isFalse();
    assertThat(admitted(weir, 10)).isZero();
  }

  @Test
  void warmUpQueueWaitsALateCallForItsTurn() {
    Weir weir = engine(FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.WARM_UP_QUEUE)
        .warmUpPeriod(Duration.ofSeconds(2)).coldFactor(3).maxQueueingTime(Duration.ofMillis(500)).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    ticker.advance(Duration.ofSeconds(1));
    long start = ticker.read();
    assertThat(tryOnce(weir)).isTrue();
    assertThat(late.release()).isTrue();
    // The late call took the next slot: it waited (the fake sleeper advanced the clock) at least one
    // stable spacing after the first call instead of passing at its old reading.
    assertThat(ticker.read() - start).isGreaterThanOrEqualTo(100 * MILLIS);
  }

  @Test
  void threadsCountsALateCallLikeAnyOther() {
    Weir weir = engine(FlowRule.threads("r", 1));
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir));
    ticker.advance(Duration.ofSeconds(-1)); // time is irrelevant to a concurrency limit
    try (Entry inside = weir.entry("r")) {
      assertThat(late.release()).isFalse();
    } catch (BlockException unexpected) {
      throw new AssertionError(unexpected);
    }
    assertThat(tryOnce(weir)).isTrue();
  }

  @Test
  void paramFlowTokenBucketNeverRefillsForALateReading() {
    // Old code: a token bucket further ahead than its horizon was taken for a clock gone back and
    // refilled: 5 + 1 + 4 = 10 admitted within 1 ms for a count of 5.
    Weir weir = engine(ParamFlowRule.builder("r").count(5).duration(Duration.ofSeconds(1)).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir, "hot"));
    ticker.advance(Duration.ofMillis(1));
    int admitted = admitted(weir, 5, "hot");
    admitted += late.release() ? 1 : 0;
    admitted += admitted(weir, 4, "hot");
    assertThat(admitted).isEqualTo(5);
  }

  @Test
  void paramFlowQueueSchedulesALateCallAfterTheNewestSlot() {
    Weir weir = engine(ParamFlowRule.builder("r").count(10).duration(Duration.ofSeconds(1))
        .controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ZERO).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir, "hot"));
    ticker.advance(Duration.ofSeconds(1));
    assertThat(tryOnce(weir, "hot")).isTrue();
    assertThat(late.release()).isFalse();
    assertThat(tryOnce(weir, "hot")).isFalse();
  }

  @Test
  void paramFlowThreadsCountsALateCallLikeAnyOther() {
    Weir weir = engine(ParamFlowRule.builder("r").grade(FlowGrade.THREADS).count(1).build());
    HoldingSlot.Held<Boolean> late = holding.hold(() -> tryOnce(weir, "hot"));
    try (Entry inside = weir.entry("r", EntryType.OUT, 1, "hot")) {
      assertThat(late.release()).isFalse();
    } catch (BlockException unexpected) {
      throw new AssertionError(unexpected);
    }
    assertThat(tryOnce(weir, "hot")).isTrue();
  }
}
