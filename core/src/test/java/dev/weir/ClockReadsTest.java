package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Which clock a call reads. The engine's own ticker is read coarsely by default (a thread of the
 * engine's own, 1 ms), a ticker given to the builder on every call; and on a coarse clock only a resource whose rules need
 * sub-millisecond time reads the ticker itself, when a call enters and when it completes, decided
 * per resource when its rules change. Counted: the ticker counts the reads the calling thread makes.
 */
class ClockReadsTest {

  private static final int CALLS = 6_400;

  /** A ticker that stands still and counts the reads made on the test's thread (not the clock's). */
  private static final class CountingTicker implements Ticker {
    private final Thread caller = Thread.currentThread();
    private final AtomicLong reads = new AtomicLong();

    @Override
    public long read() {
      if (Thread.currentThread() == caller) {
        reads.incrementAndGet();
      }
      return 1_000_000_000L;
    }
  }

  private final CountingTicker ticker = new CountingTicker();

  /** Ticker reads the calling thread makes for {@value #CALLS} calls of {@code resource} (entry and close). */
  private long readsPerCall(Weir weir, String resource) {
    weir.entry(resource).close(); // the node exists, its rules are read
    long before = ticker.reads.get();
    for (int i = 0; i < CALLS; i++) {
      weir.entry(resource).close();
    }
    return ticker.reads.get() - before;
  }

  private Weir coarse(RuleSet rules) {
    return Weir.builder().ticker(ticker).clockResolution(Duration.ofMillis(1)).rules(rules).build();
  }

  @Test
  void theEnginesOwnTickerIsReadCoarselyByDefaultAndAGivenTickerOnEveryCall() {
    try (Weir system = Weir.builder().build(); Weir driven = Weir.builder().ticker(new FakeTicker()).build();
        Weir zero = Weir.builder().clockResolution(Duration.ZERO).build()) {
      assertThat(system.clockResolutionNanos()).isEqualTo(1_000_000);
      assertThat(driven.clockResolutionNanos()).as("a driven ticker drives every reading").isZero();
      assertThat(zero.clockResolutionNanos()).isZero();
    }
  }

  @Test
  void aResourceWhoseRulesNeedNoSubMillisecondTimeReadsTheTickerOnceInSixtyFourCalls() {
    try (Weir weir = coarse(RuleSet.of(FlowRule.qps("window", 1e9), FlowRule.builder("exact").count(100_000).exact(true)
        .build(), FlowRule.threads("threads", 100))
        .withDegrade(List.of(DegradeRule.builder("slow").strategy(DegradeStrategy.SLOW_RATIO).threshold(0.5)
            .slowCallThreshold(Duration.ofMillis(10)).build())))) {
      for (String resource : List.of("window", "exact", "threads", "slow", "none")) {
        assertThat(readsPerCall(weir, resource)).as(resource).isEqualTo(CALLS / 64);
      }
    }
  }

  @Test
  void aResourceWhoseRulesNeedSubMillisecondTimeReadsTheTickerWhenACallEntersAndCompletes() {
    try (Weir weir = coarse(RuleSet.of(
        FlowRule.builder("queue").count(1e9).controlBehavior(ControlBehavior.QUEUE)
            .maxQueueingTime(Duration.ofMillis(5)).build(),
        FlowRule.builder("warm-queue").count(1e9).controlBehavior(ControlBehavior.WARM_UP_QUEUE)
            .warmUpPeriod(Duration.ofSeconds(1)).maxQueueingTime(Duration.ofMillis(5)).build(),
        FlowRule.adaptive("adaptive", 1, 1000, 100))
        .withDegrade(List.of(DegradeRule.builder("slow").strategy(DegradeStrategy.SLOW_RATIO).threshold(0.5)
            .slowCallThreshold(Duration.ofMillis(9)).build()))
        .withParamFlow(List.of(ParamFlowRule.builder("keyed-queue").count(1e9).controlBehavior(ControlBehavior.QUEUE)
            .maxQueueingTime(Duration.ofMillis(5)).build())))) {
      for (String resource : List.of("queue", "warm-queue", "adaptive", "slow", "keyed-queue")) {
        assertThat(readsPerCall(weir, resource)).as(resource).isGreaterThanOrEqualTo(2L * CALLS);
      }
    }
  }

  @Test
  void theClockAResourceReadsFollowsItsRules() {
    try (Weir weir = coarse(RuleSet.of(FlowRule.qps("r", 1e9)))) {
      Resource r = weir.resource("r");
      assertThat(readsPerCall(weir, "r")).isEqualTo(CALLS / 64);
      weir.rules().replace("r", RuleSet.of(FlowRule.adaptive("r", 1, 1000, 100)));
      assertThat(readsPerCall(weir, "r")).isGreaterThanOrEqualTo(2L * CALLS);
      long before = ticker.reads.get();
      r.entry().close();
      assertThat(ticker.reads.get() - before).as("through a handle resolved before the change").isGreaterThanOrEqualTo(2);
      weir.rules().replace("r", RuleSet.of(FlowRule.qps("r", 1e9)));
      assertThat(readsPerCall(weir, "r")).isEqualTo(CALLS / 64);
    }
  }
}
