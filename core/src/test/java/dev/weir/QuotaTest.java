package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@link Weir#quotas} reads from each kind of limiter, on a driven ticker and under real threads. */
class QuotaTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L); // a whole number of seconds

  private Weir engine(RuleSet rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(rules).build();
  }

  private static int admit(Weir weir, int attempts, Object... args) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      try (Entry entry = weir.entry("r", EntryType.IN, 1, args)) {
        admitted++;
      } catch (BlockException refused) {
        // counted by the caller
      }
    }
    return admitted;
  }

  @Test
  void slidingWindowRemainingAndResetFollowItsBuckets() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("r").count(10).interval(Duration.ofSeconds(10)).build()));
    assertThat(weir.quotas("r")).containsExactly(new Quota(RuleKind.FLOW, 0, 10, Duration.ofSeconds(10), 10,
        Duration.ZERO));
    assertThat(admit(weir, 4)).isEqualTo(4);                       // bucket 0 (1 s buckets)
    ticker.advance(Duration.ofMillis(2500));
    assertThat(admit(weir, 3)).isEqualTo(3);                       // bucket 2
    Quota q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isEqualTo(3);
    // bucket 2 leaves the window when bucket 12 starts: 12 s after the start, 9.5 s from now
    assertThat(q.reset()).isEqualTo(Duration.ofMillis(9500));
    ticker.advance(Duration.ofMillis(8000));                       // 10.5 s: bucket 0 has left
    q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isEqualTo(7);
    assertThat(q.reset()).isEqualTo(Duration.ofMillis(1500));
    ticker.advance(Duration.ofMillis(1500));
    assertThat(weir.quotas("r").get(0).remaining()).isEqualTo(10);
    assertThat(weir.quotas("r").get(0).reset()).isZero();
  }

  @Test
  void exactWindowCountsTheAdmissionsOfTheLastInterval() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("r").count(5).exact(true).build()));
    assertThat(admit(weir, 2)).isEqualTo(2);
    ticker.advance(Duration.ofMillis(600));
    assertThat(admit(weir, 9)).isEqualTo(3);
    Quota q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isZero();
    assertThat(q.reset()).isEqualTo(Duration.ofSeconds(1));
    ticker.advance(Duration.ofMillis(400));                         // the first two age out
    q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isEqualTo(2);
    assertThat(q.reset()).isEqualTo(Duration.ofMillis(600));
    assertThat(admit(weir, 9)).as("what the reading said").isEqualTo(2);
  }

  @Test
  void tokenBucketPerKeyShowsItsTokensAndTheTimeToFill() {
    Weir weir = engine(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").count(4)
        .duration(Duration.ofSeconds(2)).burst(1).exceptions(List.of(new ParamFlowItem("vip", 8))).build())));
    assertThat(weir.quotas("r", "a")).as("a key not seen yet has its full bucket")
        .containsExactly(new Quota(RuleKind.PARAM_FLOW, 0, 4, Duration.ofSeconds(2), 5, Duration.ZERO));
    assertThat(admit(weir, 3, "a")).isEqualTo(3);
    Quota q = weir.quotas("r", "a").get(0);
    assertThat(q.remaining()).isEqualTo(2);
    assertThat(q.reset()).as("3 tokens at 500 ms each").isEqualTo(Duration.ofMillis(1500));
    ticker.advance(Duration.ofMillis(500));
    assertThat(weir.quotas("r", "a").get(0).remaining()).isEqualTo(3);
    assertThat(weir.quotas("r", "b").get(0).remaining()).as("another key").isEqualTo(5);
    assertThat(weir.quotas("r", "vip").get(0).limit()).as("an exception's own count").isEqualTo(8);
    assertThat(weir.quotas("r", List.of("a", "b"))).as("one quota per element: none is told").isEmpty();
  }

  @Test
  void onlyRulesThatKeepAQuotaAndApplyToTheCallerAreRead() {
    Weir weir = engine(RuleSet.of(
        FlowRule.builder("r").count(5).build(),
        FlowRule.builder("r").count(2).grade(FlowGrade.THREADS).build(),
        FlowRule.builder("r").count(5).controlBehavior(ControlBehavior.QUEUE)
            .maxQueueingTime(Duration.ofMillis(100)).build(),
        FlowRule.builder("r").count(3).limitApp("partner").build()));
    assertThat(weir.quotas("r")).extracting(Quota::index).containsExactly(0);
    assertThat(weir.callInContext("web", "partner", () -> weir.quotas("r"))).extracting(Quota::index)
        .containsExactly(0, 3);
    assertThat(weir.quotas("unknown")).isEmpty();
  }

  /**
   * Real threads on the system clock: eight threads call a 200-per-second window while a reader
   * reads quotas. Every reading lies within [0, count], and a reading taken with no call in flight
   * equals the count less what the engine admitted in the window it reads.
   */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void readingsUnderRealThreadsStayWithinTheCount() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.builder("r").count(200).build())).build();
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<Long> readings = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      threads.add(new Thread(() -> {
        while (!stop.get()) {
          admit(weir, 1);
        }
      }));
    }
    threads.forEach(Thread::start);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() < end) {
      readings.add(weir.quotas("r").get(0).remaining());
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(10_000);
    }
    assertThat(readings).isNotEmpty().allSatisfy(r -> assertThat(r).isBetween(0L, 200L));
    assertThat(readings).as("the window was used up at some point").contains(0L);
    Thread.sleep(1100);
    assertThat(weir.quotas("r").get(0).remaining()).as("a second of quiet empties the window").isEqualTo(200);
  }
}
