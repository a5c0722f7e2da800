package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many threads against one engine, with the clock frozen during each phase so that the bucket of
 * every admission is known: counts must be conserved and no limit may be exceeded, ever.
 */
class ConcurrencyStressTest {

  private static final int THREADS = 8;
  private static final int PHASES = 300;
  private static final int CALLS_PER_PHASE = 150;
  private static final long STEP_NANOS = 7_000_000L; // 7 ms: unrelated to the 100 ms buckets
  private static final long BUCKET_NANOS = 100_000_000L;
  private static final int QPS = 1_000;
  private static final int EXACT = 500;
  private static final int INSIDE = 2;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void countsAreConservedAndLimitsHoldUnderEightThreads() throws Exception {
    FakeTicker ticker = new FakeTicker(123_456_789_000L);
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(
        FlowRule.qps("qps", QPS),
        FlowRule.builder("exact").count(EXACT).exact(true).build(),
        FlowRule.threads("threads", INSIDE))).build();

    Map<String, LongAdder> attempts = new ConcurrentHashMap<>();
    Map<String, LongAdder> admitted = new ConcurrentHashMap<>();
    Map<String, LongAdder> refused = new ConcurrentHashMap<>();
    for (String r : List.of("qps", "exact", "threads")) {
      attempts.put(r, new LongAdder());
      admitted.put(r, new LongAdder());
      refused.put(r, new LongAdder());
    }
    long[] qpsPerPhase = new long[PHASES];
    long[] exactPerPhase = new long[PHASES];
    AtomicLong[] qpsCounts = new AtomicLong[PHASES];
    AtomicLong[] exactCounts = new AtomicLong[PHASES];
    for (int p = 0; p < PHASES; p++) {
      qpsCounts[p] = new AtomicLong();
      exactCounts[p] = new AtomicLong();
    }
    long[] phaseTime = new long[PHASES];
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicLong failedRecorded = new AtomicLong();

    CyclicBarrier start = new CyclicBarrier(THREADS, () -> { });
    CyclicBarrier end = new CyclicBarrier(THREADS);
    AtomicInteger phase = new AtomicInteger();
    // The last thread to finish a phase advances the clock for the next one.
    CyclicBarrier advance = new CyclicBarrier(THREADS, () -> {
      ticker.advanceNanos(STEP_NANOS);
      phase.incrementAndGet();
    });

    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Thread worker = new Thread(() -> {
        try {
          start.await();
          for (int p = 0; p < PHASES; p++) {
            int current = phase.get();
            phaseTime[current] = ticker.read();
            for (int i = 0; i < CALLS_PER_PHASE; i++) {
              attempts.get("qps").increment();
              try (Entry entry = weir.entry("qps")) {
                admitted.get("qps").increment();
                qpsCounts[current].incrementAndGet();
                if ((i & 7) == 0) {
                  entry.recordError(new IllegalStateException("planned failure"));
                  failedRecorded.incrementAndGet();
                }
              } catch (BlockException e) {
                refused.get("qps").increment();
              }
              attempts.get("exact").increment();
              try (Entry entry = weir.entry("exact")) {
                admitted.get("exact").increment();
                exactCounts[current].incrementAndGet();
              } catch (BlockException e) {
                refused.get("exact").increment();
              }
              attempts.get("threads").increment();
              try (Entry entry = weir.entry("threads")) {
                admitted.get("threads").increment();
                int now = inside.incrementAndGet();
                maxInside.accumulateAndGet(now, Math::max);
                Thread.yield();
                inside.decrementAndGet();
              } catch (BlockException e) {
                refused.get("threads").increment();
              }
            }
            advance.await();
          }
          end.await();
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(failures).isEmpty();

    long totalAttempts = 0;
    for (String r : List.of("qps", "exact", "threads")) {
      ResourceStatistics stats = weir.statistics(r);
      long tried = attempts.get(r).sum();
      totalAttempts += tried;
      assertThat(stats.totalPassed() + stats.totalBlocked()).as("%s: passed + blocked = attempts", r).isEqualTo(tried);
      assertThat(stats.totalPassed()).as("%s: passed as seen by callers", r).isEqualTo(admitted.get(r).sum());
      assertThat(stats.totalBlocked()).as("%s: blocked as seen by callers", r).isEqualTo(refused.get(r).sum());
      assertThat(stats.totalSucceeded() + stats.totalFailed()).as("%s: succeeded + failed = passed", r)
          .isEqualTo(stats.totalPassed());
      assertThat(stats.activeCalls()).as("%s: nothing inside afterwards", r).isZero();
    }
    assertThat(totalAttempts).isGreaterThanOrEqualTo(1_000_000);
    assertThat(weir.statistics("qps").totalFailed()).isEqualTo(failedRecorded.get());

    // threads: the limit held, and it was actually contended.
    assertThat(maxInside.get()).isLessThanOrEqualTo(INSIDE);
    assertThat(refused.get("threads").sum()).isPositive();

    // qps: admissions per bucket, then every window of ten consecutive buckets holds <= QPS.
    TreeMap<Long, Long> perBucket = new TreeMap<>();
    for (int p = 0; p < PHASES; p++) {
      qpsPerPhase[p] = qpsCounts[p].get();
      exactPerPhase[p] = exactCounts[p].get();
      perBucket.merge(Math.floorDiv(phaseTime[p], BUCKET_NANOS), qpsPerPhase[p], Long::sum);
    }
    long first = perBucket.firstKey();
    long last = perBucket.lastKey();
    long best = 0;
    for (long b = first; b <= last; b++) {
      long window = 0;
      for (long k = b - 9; k <= b; k++) {
        window += perBucket.getOrDefault(k, 0L);
      }
      assertThat(window).as("admissions in the window ending with bucket %d", b).isLessThanOrEqualTo(QPS);
      best = Math.max(best, window);
    }
    assertThat(best).as("the limit was reached, so the bound was tested").isEqualTo(QPS);

    // exact: any span of one second holds <= EXACT admissions.
    for (int p = 0; p < PHASES; p++) {
      long sum = 0;
      for (int q = p; q < PHASES && phaseTime[q] - phaseTime[p] < 1_000_000_000L; q++) {
        sum += exactPerPhase[q];
      }
      assertThat(sum).as("exact: admissions in the second from phase %d", p).isLessThanOrEqualTo(EXACT);
    }
  }
}
