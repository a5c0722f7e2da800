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
   * A deterministic interleaving: a reader takes its clock reading, is descheduled, and reads the
   * quota only after other calls, with later readings, took permits in a later bucket. Each limiter
   * reads such a late reading at its newest state: the quota it reports leaves out nothing taken.
   */
  @Test
  void aLateReadingLeavesOutNothingTakenAfterIt() {
    EngineClock clock = new EngineClock(ticker, ticker);
    long second = TimeUnit.SECONDS.toNanos(1);
    List<FlowLimiter> limiters = List.of(new WindowLimiter(second, 10, clock, ticker.read()),
        new ExactLimiter(second, 10, clock, ticker.read()), new TokenBucketLimiter(second, 10, 0, clock, ticker.read()));
    for (FlowLimiter limiter : limiters) {
      long held = ticker.read();                                      // the descheduled reader's reading
      ticker.advance(Duration.ofMillis(600));                         // later buckets, for the window
      for (int i = 0; i < 4; i++) {
        assertThat(limiter.tryAcquire(1, ticker.read())).as(limiter + " admits").isNotNegative();
      }
      long[] out = new long[2];
      assertThat(limiter.readQuota(held, out)).isTrue();
      assertThat(out[0]).as(limiter.getClass().getSimpleName() + ": the four taken after the reading count")
          .isLessThanOrEqualTo(6);
      assertThat(limiter.tryAcquire(6, ticker.read())).as("and the six it reports are there")
          .isNotNegative();
      ticker.advance(Duration.ofSeconds(5));
    }
  }

  /**
   * Real threads on the system clock: eight threads call a 200-per-second window while a reader
   * reads quotas. Each admission is recorded with the engine's own reading of it. A quota read
   * after an admission was recorded counts it whenever that admission's bucket is inside the window
   * of every reading the quota could have been taken at: remaining is at most the count less those.
   * The window is used up at times, and a second of quiet empties it.
   */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void readingsUnderRealThreadsCountEveryAdmissionOfTheirWindow() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.builder("r").count(200).build())).build();
    long bucketNanos = TimeUnit.SECONDS.toNanos(1) / WindowLimiter.BUCKETS;
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<Long> admissions = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      threads.add(new Thread(() -> {
        while (!stop.get()) {
          try (Entry entry = weir.entry("r")) {
            admissions.add(entry.startNanos());
          } catch (BlockException refused) {
            Thread.onSpinWait();
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    List<String> violations = new ArrayList<>();
    int readings = 0;
    boolean usedUp = false;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() < end) {
      List<Long> before = new ArrayList<>(admissions);               // all recorded before t0
      long t0 = System.nanoTime();
      long remaining = weir.quotas("r").get(0).remaining();
      long t1 = System.nanoTime();
      // The reading lies in [t0, t1]; its window holds buckets (index - BUCKETS, index]. Buckets
      // after t1's less BUCKETS and up to t0's are in it whatever the reading was.
      long low = Math.floorDiv(t1, bucketNanos) - WindowLimiter.BUCKETS;
      long high = Math.floorDiv(t0, bucketNanos);
      long counted = before.stream().map(at -> Math.floorDiv(at, bucketNanos)).filter(b -> b > low && b <= high)
          .count();
      if (remaining > 200 - counted) {
        violations.add("remaining " + remaining + " with " + counted + " admissions surely in its window");
      }
      usedUp |= remaining == 0;
      readings++;
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(10_000);
    }
    assertThat(readings).isPositive();
    assertThat(violations).isEmpty();
    assertThat(usedUp).as("the window was used up at some point").isTrue();
    assertThat(admissions.size()).as("2 s at 200 a second, with the window of the first").isBetween(200, 600);
    Thread.sleep(1100);
    assertThat(weir.quotas("r").get(0).remaining()).as("a second of quiet empties the window").isEqualTo(200);
  }
}
