package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.internal.call.RecordingClock;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every flow behaviour and param-flow kind under {@value #THREADS} real threads on
 * {@code System.nanoTime()}, no frozen clock: threads read the clock, get descheduled and arrive
 * late, as on any loaded machine. Each admission is recorded at the engine's own time for it
 * ({@link RecordingClock}), and the rule's documented bound is asserted over every span of the run.
 * Before the engine's time model, {@code exact} let 40-78x its count into one second here, and
 * {@code queue} more than twice its rate.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RealClockBoundsTest {

  private static final int THREADS = 8;
  private static final long MILLIS = 1_000_000L;
  private static final Duration RUN = Duration.ofMillis(1200);

  private final RecordingClock clock = new RecordingClock();
  private final AtomicInteger inside = new AtomicInteger();
  private final AtomicInteger mostInside = new AtomicInteger();

  private Weir engine(FlowRule rule) {
    return Weir.builder().ticker(clock).sleeper(clock).rules(RuleSet.of(rule)).build();
  }

  private Weir engine(ParamFlowRule rule) {
    return Weir.builder().ticker(clock).sleeper(clock).rules(RuleSet.empty().withParamFlow(List.of(rule))).build();
  }

  /** Hammers {@code resource} from every thread for {@link #RUN}; returns the admissions' times, sorted. */
  private List<Long> hammer(Weir weir, boolean holdInside) throws InterruptedException {
    return hammer(weir, holdInside, false);
  }

  private List<Long> hammer(Weir weir, boolean holdInside, boolean queued) throws InterruptedException {
    List<Long> admitted = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        long end = System.nanoTime() + RUN.toNanos();
        while (System.nanoTime() - end < 0) {
          clock.startCall();
          try (Entry entry = weir.entry("r", EntryType.OUT, 1, "hot")) {
            admitted.add(queued ? clock.queuedAdmittedAt() : clock.admittedAt());
            if (holdInside) {
              int now = inside.incrementAndGet();
              mostInside.accumulateAndGet(now, Math::max);
              Thread.yield();
              inside.decrementAndGet();
            }
          } catch (BlockException refused) {
            Thread.onSpinWait();
          }
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    List<Long> sorted = new ArrayList<>(admitted);
    Collections.sort(sorted);
    return sorted;
  }

  @Test
  void rejectNeverExceedsTheCountInAnyWindowOfItsBuckets() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(20).interval(Duration.ofMillis(100)).build());
    List<Long> times = hammer(weir, false);
    long bucket = 10 * MILLIS;
    java.util.Map<Long, Integer> perBucket = new java.util.TreeMap<>();
    for (long t : times) {
      perBucket.merge(Math.floorDiv(t, bucket), 1, Integer::sum);
    }
    for (long first : perBucket.keySet()) {
      int inWindow = 0;
      for (long b = first; b < first + 10; b++) {
        inWindow += perBucket.getOrDefault(b, 0);
      }
      assertThat(inWindow).as("admissions in the ten buckets from %d", first).isLessThanOrEqualTo(20);
    }
    assertThat(times.size()).as("the rule still admits at its rate").isGreaterThanOrEqualTo(100);
  }

  /**
   * A count large enough for threads to lease credits ({@link WindowLimiter#LEASE_FLOOR}): the first
   * half of each window goes through per-thread credits, the rest through the exact slot CAS.
   */
  @Test
  void rejectWithCreditsNeverExceedsTheCountInAnyWindowOfItsBuckets() throws InterruptedException {
    int count = 8000;
    Weir weir = engine(FlowRule.builder("r").count(count).interval(Duration.ofMillis(100)).build());
    List<Long> times = hammer(weir, false);
    long bucket = 10 * MILLIS;
    java.util.Map<Long, Integer> perBucket = new java.util.TreeMap<>();
    for (long t : times) {
      perBucket.merge(Math.floorDiv(t, bucket), 1, Integer::sum);
    }
    int fullest = 0;
    for (long first : perBucket.keySet()) {
      int inWindow = 0;
      for (long b = first; b < first + 10; b++) {
        inWindow += perBucket.getOrDefault(b, 0);
      }
      fullest = Math.max(fullest, inWindow);
      assertThat(inWindow).as("admissions in the ten buckets from %d", first).isLessThanOrEqualTo(count);
    }
    assertThat(fullest).as("some window got near the count: credits were leased and the limit reached")
        .isGreaterThan((int) (count - WindowLimiter.LEASE_FLOOR));
  }

  @Test
  void exactNeverExceedsTheCountInAnyIntervalLongSpan() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(20).interval(Duration.ofMillis(100)).exact(true).build());
    List<Long> times = hammer(weir, false);
    for (int i = 20; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 20)).as("admission %d and the 20th before it", i)
          .isGreaterThanOrEqualTo(100 * MILLIS);
    }
    assertThat(times.size()).isGreaterThanOrEqualTo(100);
  }

  @Test
  void queueSpacesAdmissions() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofMillis(50)).build());
    assertPaced(hammer(weir, false, true), 10 * MILLIS);
  }

  @Test
  void warmUpNeverSpacesCallsCloserThanTheStableRate() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofMillis(500)).coldFactor(3).build());
    assertPaced(hammer(weir, false), 10 * MILLIS, 30); // starts cold, at a third of the rate
  }

  @Test
  void warmUpQueueNeverSpacesCallsCloserThanTheStableRate() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.WARM_UP_QUEUE)
        .warmUpPeriod(Duration.ofMillis(500)).coldFactor(3).maxQueueingTime(Duration.ofMillis(50)).build());
    assertPaced(hammer(weir, false, true), 10 * MILLIS);
  }

  @Test
  void threadsNeverLetsMoreInsideThanTheCount() throws InterruptedException {
    Weir weir = engine(FlowRule.threads("r", 3));
    List<Long> times = hammer(weir, true);
    assertThat(mostInside.get()).isBetween(1, 3);
    assertThat(times).isNotEmpty();
  }

  @Test
  void paramFlowTokenBucketNeverExceedsItsCapacityPlusRate() throws InterruptedException {
    Weir weir = engine(ParamFlowRule.builder("r").count(20).duration(Duration.ofSeconds(1)).build());
    List<Long> times = hammer(weir, false);
    double emission = 50.0 * MILLIS;
    for (int i = 0; i < times.size(); i++) {
      for (int j = i; j < times.size(); j++) {
        double allowed = (times.get(j) - times.get(i)) / emission + 20;
        assertThat((double) (j - i + 1)).as("admissions %d..%d", i, j).isLessThanOrEqualTo(allowed);
      }
    }
    assertThat(times.size()).isGreaterThanOrEqualTo(20);
  }

  @Test
  void paramFlowQueueSpacesAdmissions() throws InterruptedException {
    Weir weir = engine(ParamFlowRule.builder("r").count(100).duration(Duration.ofSeconds(1))
        .controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ofMillis(50)).build());
    assertPaced(hammer(weir, false, true), 10 * MILLIS);
  }

  @Test
  void paramFlowThreadsNeverLetsMoreInsideThanTheCount() throws InterruptedException {
    Weir weir = engine(ParamFlowRule.builder("r").grade(FlowGrade.THREADS).count(2).build());
    hammer(weir, true);
    assertThat(mostInside.get()).isBetween(1, 2);
  }

  /**
   * Paced admissions: no two closer than the spacing (less 1 µs for the rounding of the spacing to
   * whole nanoseconds), and so no more over the run than its length allows.
   */
  private static void assertPaced(List<Long> times, long spacing) {
    assertPaced(times, spacing, 60);
  }

  private static void assertPaced(List<Long> times, long spacing, int atLeast) {
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 1)).as("gap before admission %d", i)
          .isGreaterThanOrEqualTo(spacing - 1_000);
    }
    long span = times.get(times.size() - 1) - times.get(0);
    assertThat((long) times.size()).isLessThanOrEqualTo(span / spacing + 1);
    assertThat(times.size()).as("the rule still admits at its rate").isGreaterThanOrEqualTo(atLeast);
  }
}
