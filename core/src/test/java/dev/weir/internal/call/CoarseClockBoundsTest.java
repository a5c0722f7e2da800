package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An engine on the real clock read coarsely ({@code clockResolution}, 1 ms), under real threads for
 * a second: every rule's bound holds over every span of engine time, as on a clock read on every
 * call. Each admission is recorded at the engine's reading its limiter decided on: the call's start,
 * which a coarse time takes from its thread's last tick, or, for a call the limiter found late, the
 * ticker's reading it then took ({@link EngineClock#readFresh}, recorded by {@link FreshReads}).
 * Threads read a stale time, are descheduled, and arrive late; the bounds are asserted over the
 * readings the limiters decided on. (Recording the start alone is not the decision: a late call is
 * decided at the present.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CoarseClockBoundsTest {

  private static final int THREADS = 8;
  private static final long MILLIS = 1_000_000L;
  private static final Duration RUN = Duration.ofMillis(1000);

  /** The system ticker, recording per thread the last reading that thread took itself (not the tick thread's). */
  static final class FreshReads implements Ticker {
    private final ThreadLocal<long[]> last = ThreadLocal.withInitial(() -> new long[] {0, 0});

    @Override
    public long read() {
      long now = System.nanoTime();
      long[] mine = last.get();
      mine[0] = now;
      mine[1] = 1;
      return now;
    }

    void startCall() {
      last.get()[1] = 0;
    }

    /** The reading this thread took during its call, or {@code start} when it took none. */
    long decidedAt(long start) {
      long[] mine = last.get();
      return mine[1] != 0 ? mine[0] : start;
    }
  }

  private final FreshReads ticker = new FreshReads();

  /** The engine readings of every admission of {@code resource} by {@value #THREADS} threads for {@link #RUN}, sorted. */
  private List<Long> hammer(Weir weir, String resource, Object... args) throws InterruptedException {
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
          ticker.startCall();
          try (Entry entry = weir.entry(resource, EntryType.OUT, 1, args)) {
            admitted.add(ticker.decidedAt(((Call) entry).startNanos()));
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
      thread.join(30_000);
    }
    List<Long> sorted = new ArrayList<>(admitted);
    Collections.sort(sorted);
    return sorted;
  }

  private Weir coarse(RuleSet rules) {
    return Weir.builder().ticker(ticker).clockResolution(Duration.ofMillis(1)).rules(rules).build();
  }

  @Test
  void exactNeverAdmitsMoreThanCountInAnyIntervalOfEngineTime() throws InterruptedException {
    try (Weir weir = coarse(RuleSet.of(FlowRule.builder("r").count(20).interval(Duration.ofMillis(100)).exact(true)
        .build()))) {
      List<Long> admitted = hammer(weir, "r");
      assertThat(admitted).hasSizeGreaterThan(20);
      for (int i = 20; i < admitted.size(); i++) {
        assertThat(admitted.get(i) - admitted.get(i - 20)).as("admission %d and the 20th before it", i)
            .isGreaterThanOrEqualTo(100 * MILLIS);
      }
    }
  }

  @Test
  void theWindowNeverAdmitsMoreThanCountInAnyTenOfItsBuckets() throws InterruptedException {
    try (Weir weir = coarse(RuleSet.of(FlowRule.builder("r").count(20).interval(Duration.ofMillis(100)).build()))) {
      List<Long> admitted = hammer(weir, "r");
      assertThat(admitted).hasSizeGreaterThan(20);
      Map<Long, Integer> perBucket = new TreeMap<>();
      for (long t : admitted) {
        perBucket.merge(Math.floorDiv(t, 10 * MILLIS), 1, Integer::sum);
      }
      for (long first : perBucket.keySet()) {
        int inWindow = 0;
        for (long b = first; b < first + 10; b++) {
          inWindow += perBucket.getOrDefault(b, 0);
        }
        assertThat(inWindow).as("admissions in the ten buckets from %d", first).isLessThanOrEqualTo(20);
      }
    }
  }

  /** A token bucket of 10 per 100 ms (no burst): admissions at readings a..b number at most (b - a) / 10 ms + 10. */
  @Test
  void aKeysTokenBucketNeverAdmitsMoreThanItsRateAndCapacity() throws InterruptedException {
    try (Weir weir = coarse(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").count(10)
        .duration(Duration.ofMillis(100)).build())))) {
      List<Long> admitted = hammer(weir, "r", "key");
      assertThat(admitted).hasSizeGreaterThan(10);
      for (int i = 0; i < admitted.size(); i++) {
        for (int j = i; j < admitted.size(); j++) {
          long span = admitted.get(j) - admitted.get(i);
          assertThat(j - i + 1L).as("admissions from %d to %d", i, j).isLessThanOrEqualTo(span / (10 * MILLIS) + 10);
        }
      }
    }
  }
}
