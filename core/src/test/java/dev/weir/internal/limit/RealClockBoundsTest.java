package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.RealTimeRun;
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
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every flow behaviour and param-flow kind under {@value #THREADS} real threads on
 * {@code System.nanoTime()}, no frozen clock: threads read the clock, get descheduled and arrive
 * late, as on any loaded machine. Each admission is recorded at the engine's own time for it
 * ({@link RecordingClock}), and the rule's documented bound is asserted over every span of the run.
 * Before the engine's time model, {@code exact} let 40-78x its count into one second here, and
 * {@code queue} more than twice its rate.
 *
 * <p>A run lasts {@link #RUN} and then until the rule has admitted enough for its bound to be
 * tested ({@link RealTimeRun}): on a machine busy with other work the threads get less time, and
 * how many calls they make in a fixed span says nothing about the engine. That each rule admits at
 * its rate is asserted on a driven ticker ({@code WarmUpTest}, {@code QueueTest},
 * {@code RejectWindowTest}, {@code ExactModeTest}).
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

  /**
   * Hammers {@code resource} from every thread for {@link #RUN} and then until {@code atLeast}
   * admissions were recorded; returns the admissions' times, sorted.
   */
  private List<Long> hammer(Weir weir, boolean holdInside, int atLeast) throws InterruptedException {
    return hammer(weir, holdInside, false, times -> times.size() >= atLeast);
  }

  private List<Long> hammer(Weir weir, boolean holdInside, boolean queued, Predicate<List<Long>> enough)
      throws InterruptedException {
    List<Long> admitted = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    RealTimeRun run = new RealTimeRun();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        while (run.going()) {
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
    run.endWhen(RUN, () -> enough.test(admitted)); // the list is synchronized: see sorted() for more than size()
    for (Thread thread : threads) {
      thread.join();
    }
    List<Long> sorted = sorted(admitted);
    assertThat(enough.test(sorted)).as("enough admissions to test the bound, within %s: %d", RealTimeRun.MOST,
        sorted.size()).isTrue();
    return sorted;
  }

  private static List<Long> sorted(List<Long> admitted) {
    List<Long> sorted;
    synchronized (admitted) {
      sorted = new ArrayList<>(admitted);
    }
    Collections.sort(sorted);
    return sorted;
  }

  @Test
  void rejectNeverExceedsTheCountInAnyWindowOfItsBuckets() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(20).interval(Duration.ofMillis(100)).build());
    List<Long> times = hammer(weir, false, 100);
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
  }

  /**
   * A count large enough for threads to lease credits ({@link WindowLimiter#LEASE_FLOOR}): the first
   * half of each window goes through per-thread credits, the rest through the exact slot CAS.
   */
  @Test
  void rejectWithCreditsNeverExceedsTheCountInAnyWindowOfItsBuckets() throws InterruptedException {
    int count = 8000;
    Weir weir = engine(FlowRule.builder("r").count(count).interval(Duration.ofMillis(100)).build());
    // Until some window got near the count: credits were leased and the limit reached.
    List<Long> times = hammer(weir, false, false, t -> fullestWindow(sorted(t)) > count - WindowLimiter.LEASE_FLOOR);
    assertThat(fullestWindow(times)).as("the most admissions in ten consecutive buckets").isLessThanOrEqualTo(count);
  }

  /** The most admissions any ten consecutive buckets of 10 ms hold. */
  private static int fullestWindow(List<Long> times) {
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
    }
    return fullest;
  }

  @Test
  void exactNeverExceedsTheCountInAnyIntervalLongSpan() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(20).interval(Duration.ofMillis(100)).exact(true).build());
    List<Long> times = hammer(weir, false, 100);
    for (int i = 20; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 20)).as("admission %d and the 20th before it", i)
          .isGreaterThanOrEqualTo(100 * MILLIS);
    }
  }

  @Test
  void queueSpacesAdmissions() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofMillis(50)).build());
    assertPaced(hammer(weir, false, true, atLeast(60)), 10 * MILLIS);
  }

  @Test
  void warmUpNeverSpacesCallsCloserThanTheStableRate() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofMillis(500)).coldFactor(3).build());
    assertPaced(hammer(weir, false, 30), 10 * MILLIS); // starts cold, at a third of the rate
  }

  @Test
  void warmUpQueueNeverSpacesCallsCloserThanTheStableRate() throws InterruptedException {
    Weir weir = engine(FlowRule.builder("r").count(100).controlBehavior(ControlBehavior.WARM_UP_QUEUE)
        .warmUpPeriod(Duration.ofMillis(500)).coldFactor(3).maxQueueingTime(Duration.ofMillis(50)).build());
    assertPaced(hammer(weir, false, true, atLeast(60)), 10 * MILLIS);
  }

  @Test
  void threadsNeverLetsMoreInsideThanTheCount() throws InterruptedException {
    Weir weir = engine(FlowRule.threads("r", 3));
    hammer(weir, true, 1);
    assertThat(mostInside.get()).isBetween(1, 3);
  }

  @Test
  void paramFlowTokenBucketNeverExceedsItsCapacityPlusRate() throws InterruptedException {
    Weir weir = engine(ParamFlowRule.builder("r").count(20).duration(Duration.ofSeconds(1)).build());
    List<Long> times = hammer(weir, false, 20);
    double emission = 50.0 * MILLIS;
    for (int i = 0; i < times.size(); i++) {
      for (int j = i; j < times.size(); j++) {
        double allowed = (times.get(j) - times.get(i)) / emission + 20;
        if (j - i + 1 > allowed) { // checked before asserting: a pair at a time
          assertThat((double) (j - i + 1)).as("admissions %d..%d", i, j).isLessThanOrEqualTo(allowed);
        }
      }
    }
  }

  @Test
  void paramFlowQueueSpacesAdmissions() throws InterruptedException {
    Weir weir = engine(ParamFlowRule.builder("r").count(100).duration(Duration.ofSeconds(1))
        .controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ofMillis(50)).build());
    assertPaced(hammer(weir, false, true, atLeast(60)), 10 * MILLIS);
  }

  @Test
  void paramFlowThreadsNeverLetsMoreInsideThanTheCount() throws InterruptedException {
    Weir weir = engine(ParamFlowRule.builder("r").grade(FlowGrade.THREADS).count(2).build());
    hammer(weir, true, 1);
    assertThat(mostInside.get()).isBetween(1, 2);
  }

  private static Predicate<List<Long>> atLeast(int admissions) {
    return times -> times.size() >= admissions;
  }

  /**
   * Paced admissions: no two closer than the spacing (less 1 µs for the rounding of the spacing to
   * whole nanoseconds), and so no more over the run than its length allows.
   */
  private static void assertPaced(List<Long> times, long spacing) {
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 1)).as("gap before admission %d", i)
          .isGreaterThanOrEqualTo(spacing - 1_000);
    }
    long span = times.get(times.size() - 1) - times.get(0);
    assertThat((long) times.size()).isLessThanOrEqualTo(span / spacing + 1);
  }
}
