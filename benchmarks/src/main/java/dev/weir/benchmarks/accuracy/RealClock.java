package dev.weir.benchmarks.accuracy;

import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import com.alibaba.csp.sentinel.util.TimeUtil;
import com.google.common.util.concurrent.DrivenRateLimiters;
import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Sleeper;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The real-clock rows of the accuracy table: {@link #THREADS} threads on {@code System.nanoTime()}
 * call one limiter as fast as they can for a few seconds, and every admission is timestamped with
 * the engine's own clock reading for it. Nothing is driven, so the cells differ from run to run.
 *
 * <p>Admission timestamps, per engine (also in the report's notes):
 * <ul>
 *   <li>Weir: the ticker given to {@code Weir.builder().ticker(...)} wraps {@code System.nanoTime()}
 *       and records, per thread, the last reading it returned; an admission's time is the last
 *       reading that thread's ticker gave before {@code entry()} returned (the reading the limiter
 *       decided on, or its fresh re-reading of a late call; for queue rules, the reading the flow
 *       slot takes when the call's slot has come, after its wait).
 *   <li>Guava and Bucket4j: their own time source, injected the same way (Guava's
 *       {@code SleepingStopwatch} in microseconds, Bucket4j's {@code TimeMeter}); Guava's time is its
 *       reading plus the wait it asked for (it does not read again after sleeping).
 *   <li>Sentinel: its clock, {@code TimeUtil.currentTimeMillis()}, cannot be wrapped per call
 *       without replacing it; the harness reads it immediately before {@code SphU.entry}.
 *   <li>Resilience4j: its clock is {@code System.nanoTime()} in a private method; the harness reads
 *       {@code System.nanoTime()} immediately before {@code acquirePermission()}.
 * </ul>
 */
final class RealClock {

  /** Threads calling the limiter at once. */
  static final int THREADS = 8;
  /** Runs per engine: the worst run's worst span and own window, the mean rate. */
  static final int RUNS = 3;

  private RealClock() {
  }

  /** One engine under real time. */
  record RealEngine(String key, String label, String clock, int ownWindowBuckets, Starter starter) {
  }

  @FunctionalInterface
  interface Starter {
    Run start(int limit, long intervalNanos);
  }

  /** A fresh limiter on the real clock; {@link #attempt} is called by many threads at once. */
  interface Run extends AutoCloseable {

    /** The engine's time now, in nanoseconds of the same scale as {@link #attempt}'s timestamps. */
    long now();

    /** One call: its admission timestamp, or {@link #REFUSED}. */
    long attempt();

    /** Where the engine's own buckets start (timestamps minus this are bucket-aligned). */
    default long windowOrigin() {
      return 0;
    }

    @Override
    default void close() {
    }
  }

  static final long REFUSED = Long.MIN_VALUE;

  /**
   * One engine's cell: counts are admissions (divide by the limit for the table).
   *
   * @param worstSpan most admissions in any span {@code [t, t + I)}, worst run
   * @param ownWindow most admissions in one window of the engine's own buckets, worst run; -1 if none
   * @param ratePerInterval admissions per interval within {@code [start, start + seconds)}, mean of the runs
   * @param attemptsPerSecond calls made per second by all threads, mean of the runs
   * @param slotWorstSpan Weir queue rows only: the worst span on the slot times (the reading the
   *     wait was computed from plus the wait), -1 otherwise
   */
  record Cell(int runs, int worstSpan, int ownWindow, double ratePerInterval, double attemptsPerSecond,
      int slotWorstSpan) {
  }

  static List<RealEngine> all() {
    return List.of(
        weir("weir", "Weir reject (default)", 10, r -> FlowRule.qps(r, 0)),
        weir("weir-exact", "Weir `exact: true`", 0, r -> FlowRule.builder(r).exact(true).build()),
        weir("weir-queue", "Weir queue, max wait 0", 0,
            r -> FlowRule.builder(r).controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ZERO).build()),
        weir("weir-queue-wait", "Weir queue, max wait 500 ms", 0,
            r -> FlowRule.builder(r).controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Engines.MAX_WAIT).build()),
        sentinel(),
        resilience4j(),
        guava("guava", "Guava `tryAcquire()`", 0),
        guava("guava-wait", "Guava `tryAcquire(500 ms)`", Engines.MAX_WAIT.toNanos()),
        bucket4j());
  }

  /** Every engine, {@code runs} runs of {@code seconds} each. */
  static Map<String, Cell> measure(List<RealEngine> engines, int seconds, int runs) {
    Map<String, Cell> cells = new LinkedHashMap<>();
    for (RealEngine engine : engines) {
      cells.put(engine.key(), measure(engine, seconds, runs));
    }
    return cells;
  }

  static Cell measure(RealEngine engine, int seconds, int runs) {
    int worst = 0;
    int own = -1;
    int slotWorst = -1;
    double rate = 0;
    double attempts = 0;
    for (int i = 0; i < runs; i++) {
      Outcome outcome = run(engine, seconds);
      worst = Math.max(worst, Metrics.worstSpan(outcome.admissions, Accuracy.INTERVAL_NANOS));
      if (engine.ownWindowBuckets() > 0) {
        long[] shifted = outcome.admissions.clone();
        for (int k = 0; k < shifted.length; k++) {
          shifted[k] -= outcome.origin;
        }
        own = Math.max(own, Metrics.ownWindow(shifted, Accuracy.INTERVAL_NANOS, engine.ownWindowBuckets()));
      }
      if (outcome.slots != null) {
        slotWorst = Math.max(slotWorst, Metrics.worstSpan(outcome.slots, Accuracy.INTERVAL_NANOS));
      }
      long start = outcome.start;
      long end = start + seconds * Accuracy.INTERVAL_NANOS;
      int within = 0;
      for (long t : outcome.admissions) {
        if (t >= start && t < end) {
          within++;
        }
      }
      rate += within / (double) seconds / runs;
      attempts += outcome.attempts / (double) seconds / runs;
    }
    return new Cell(runs, worst, own, rate, attempts, slotWorst);
  }

  private record Outcome(long[] admissions, long[] slots, long start, long origin, long attempts) {
  }

  private static Outcome run(RealEngine engine, int seconds) {
    try (Run run = engine.starter().start(Accuracy.LIMIT, Accuracy.INTERVAL_NANOS)) {
      CountDownLatch go = new CountDownLatch(1);
      Runner.LongList[] admitted = new Runner.LongList[THREADS];
      long[] calls = new long[THREADS];
      List<Throwable> failures = new ArrayList<>();
      List<Thread> workers = new ArrayList<>();
      long[] deadline = new long[1];
      for (int i = 0; i < THREADS; i++) {
        int me = i;
        Runner.LongList mine = admitted[i] = new Runner.LongList();
        Thread worker = new Thread(() -> {
          try {
            go.await();
            long stop = deadline[0];
            long n = 0;
            while (System.nanoTime() - stop < 0) {
              long t = run.attempt();
              n++;
              if (t != REFUSED) {
                mine.add(t);
              }
            }
            calls[me] = n;
          } catch (Throwable e) {
            synchronized (failures) {
              failures.add(e);
            }
          }
        }, "accuracy-real-" + engine.key() + "-" + i);
        worker.setDaemon(true);
        workers.add(worker);
      }
      workers.forEach(Thread::start);
      LockSupport.parkNanos(50_000_000L); // let every worker reach the latch
      long start = run.now();
      deadline[0] = System.nanoTime() + seconds * Accuracy.INTERVAL_NANOS;
      go.countDown();
      for (Thread worker : workers) {
        worker.join();
      }
      if (!failures.isEmpty()) {
        throw new IllegalStateException(engine.label() + ": a calling thread failed", failures.get(0));
      }
      Runner.LongList all = new Runner.LongList();
      for (Runner.LongList list : admitted) {
        all.addAll(list);
      }
      long[] times = all.toArray();
      Arrays.sort(times);
      long[] slots = null;
      if (run instanceof WeirRun weirRun && weirRun.queue) {
        slots = weirRun.slots();
        Arrays.sort(slots);
      }
      return new Outcome(times, slots, start, run.windowOrigin(), Arrays.stream(calls).sum());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Weir

  private static final AtomicInteger RESOURCES = new AtomicInteger();

  static RealEngine weir(String key, String label, int ownBuckets, Function<String, FlowRule> shape) {
    return new RealEngine(key, label, "its ticker (`System.nanoTime()`, wrapped): the last reading the thread took "
        + "before `entry()` returned", ownBuckets, (limit, intervalNanos) -> {
      String res = "accuracy-real-" + key + "-" + RESOURCES.incrementAndGet();
      FlowRule rule = shape.apply(res).toBuilder().count(limit).interval(Duration.ofNanos(intervalNanos)).build();
      return new WeirRun(res, rule, rule.controlBehavior() == ControlBehavior.QUEUE);
    });
  }

  /**
   * Weir on a recording ticker. Per thread: [0] the last reading, [1] the wait asked of the sleeper
   * during this call, [2] the last reading before that wait, [3] the reading before the last one.
   */
  static final class WeirRun implements Run {
    private final String res;
    final boolean queue;
    private final ThreadLocal<long[]> state = ThreadLocal.withInitial(() -> new long[4]);
    private final List<Runner.LongList> slotLists = new ArrayList<>();
    private final ThreadLocal<Runner.LongList> slotList;
    private final Weir weir;

    WeirRun(String res, FlowRule rule, boolean queue) {
      this.res = res;
      this.queue = queue;
      this.slotList = ThreadLocal.withInitial(() -> {
        Runner.LongList list = new Runner.LongList();
        synchronized (slotLists) {
          slotLists.add(list);
        }
        return list;
      });
      Sleeper real = Sleeper.system();
      this.weir = Weir.builder()
          .ticker(() -> {
            long t = System.nanoTime();
            long[] s = state.get();
            s[3] = s[0];
            s[0] = t;
            return t;
          })
          .sleeper(nanos -> {
            long[] s = state.get();
            s[1] += nanos;
            s[2] = s[0];
            real.sleep(nanos);
          })
          .rules(RuleSet.of(rule))
          .build();
    }

    @Override
    public long now() {
      return System.nanoTime();
    }

    @Override
    public long attempt() {
      long[] s = state.get();
      s[1] = 0;
      try (Entry entry = weir.entry(res)) {
        if (queue) {
          // The slot: the reading the wait was computed from plus the wait; without a wait, the
          // reading before the one the flow slot takes after the limiter (the one decided on).
          slotList.get().add(s[1] > 0 ? s[2] + s[1] : s[3]);
        }
        return s[0];
      } catch (BlockException refused) {
        return REFUSED;
      }
    }

    long[] slots() {
      Runner.LongList all = new Runner.LongList();
      synchronized (slotLists) {
        for (Runner.LongList list : slotLists) {
          all.addAll(list);
        }
      }
      return all.toArray();
    }

    @Override
    public void close() {
      weir.close();
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Peers

  static RealEngine sentinel() {
    return new RealEngine("sentinel", "Sentinel reject (default)",
        "`TimeUtil.currentTimeMillis()` (its clock, ms), read immediately before `SphU.entry`", 2,
        (limit, intervalNanos) -> {
      Engines.SentinelSetup.configure();
      SentinelTime.uninstall(); // Sentinel's own clock, not the driven one
      String res = "accuracy-real-sentinel-" + RESOURCES.incrementAndGet();
      com.alibaba.csp.sentinel.slots.block.flow.FlowRule rule =
          new com.alibaba.csp.sentinel.slots.block.flow.FlowRule(res);
      rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
      rule.setCount(limit);
      FlowRuleManager.loadRules(List.of(rule));
      return new Run() {
        @Override
        public long now() {
          return TimeUtil.currentTimeMillis() * 1_000_000L;
        }

        @Override
        public long attempt() {
          long t = TimeUtil.currentTimeMillis() * 1_000_000L;
          com.alibaba.csp.sentinel.Entry entry;
          try {
            entry = SphU.entry(res);
          } catch (com.alibaba.csp.sentinel.slots.block.BlockException refused) {
            return REFUSED;
          }
          entry.exit();
          return t;
        }

        @Override
        public void close() {
          FlowRuleManager.loadRules(List.of());
        }
      };
    });
  }

  static RealEngine resilience4j() {
    return new RealEngine("resilience4j", "Resilience4j `AtomicRateLimiter`",
        "`System.nanoTime()` read immediately before `acquirePermission()` (its clock is `System.nanoTime()`, "
            + "not injectable)", 1, (limit, intervalNanos) -> {
      RateLimiter limiter = RateLimiter.of("accuracy-real-r4j-" + RESOURCES.incrementAndGet(), RateLimiterConfig.custom()
          .limitForPeriod(limit)
          .limitRefreshPeriod(Duration.ofNanos(intervalNanos))
          .timeoutDuration(Duration.ZERO)
          .build());
      long origin = Engines.nanoTimeStart(limiter);
      return new Run() {
        @Override
        public long now() {
          return System.nanoTime();
        }

        @Override
        public long attempt() {
          long t = System.nanoTime();
          return limiter.acquirePermission() ? t : REFUSED;
        }

        @Override
        public long windowOrigin() {
          return origin; // its cycles count from nanoTimeStart
        }
      };
    });
  }

  static RealEngine guava(String key, String label, long timeoutNanos) {
    return new RealEngine(key, label,
        "its `SleepingStopwatch` (`System.nanoTime()` in µs, wrapped): its last reading, plus the wait it slept",
        0, (limit, intervalNanos) -> {
      ThreadLocal<long[]> state = ThreadLocal.withInitial(() -> new long[2]);
      com.google.common.util.concurrent.RateLimiter limiter = DrivenRateLimiters.create(
          limit * 1e9 / intervalNanos,
          () -> {
            long micros = System.nanoTime() / 1_000L;
            state.get()[0] = micros;
            return micros;
          },
          waitMicros -> {
            state.get()[1] += waitMicros;
            LockSupport.parkNanos(waitMicros * 1_000L);
          });
      return new Run() {
        @Override
        public long now() {
          return System.nanoTime() / 1_000L * 1_000L;
        }

        @Override
        public long attempt() {
          long[] s = state.get();
          s[1] = 0;
          boolean admitted = timeoutNanos == 0
              ? limiter.tryAcquire()
              : limiter.tryAcquire(1, timeoutNanos, TimeUnit.NANOSECONDS);
          return admitted ? (s[0] + s[1]) * 1_000L : REFUSED;
        }
      };
    });
  }

  static RealEngine bucket4j() {
    return new RealEngine("bucket4j", "Bucket4j token bucket",
        "its `TimeMeter` (`System.nanoTime()`, wrapped): the last reading the thread took in `tryConsume`", 0,
        (limit, intervalNanos) -> {
      ThreadLocal<long[]> last = ThreadLocal.withInitial(() -> new long[1]);
      Bucket bucket = Bucket.builder()
          .addLimit(Bandwidth.builder().capacity(limit).refillGreedy(limit, Duration.ofNanos(intervalNanos)).build())
          .withCustomTimePrecision(new TimeMeter() {
            @Override
            public long currentTimeNanos() {
              long t = System.nanoTime();
              last.get()[0] = t;
              return t;
            }

            @Override
            public boolean isWallClockBased() {
              return false;
            }
          })
          .build();
      return new Run() {
        @Override
        public long now() {
          return System.nanoTime();
        }

        @Override
        public long attempt() {
          return bucket.tryConsume(1) ? last.get()[0] : REFUSED;
        }
      };
    });
  }

  // -----------------------------------------------------------------------------------------------
  // Report

  /** The real-clock table and its notes, as a Markdown section. */
  static String markdown(List<RealEngine> engines, Map<String, Cell> cells, int seconds, int runs) {
    StringBuilder out = new StringBuilder();
    out.append("## Real clock, ").append(THREADS).append(" threads\n\n");
    out.append(String.format(Locale.ROOT, "The same limit (N = %d per I = 1 s), on the real clock: %d threads call one "
        + "limiter in a loop for %d s, %d runs per engine (the worst run's worst span and own window, the mean rate). "
        + "No clock is driven: each admission's time is the engine's own clock reading for it (see the notes), "
        + "so these cells change from run to run. Own window: as in the table above, on the engine's own bucket "
        + "edges (Resilience4j's cycles from its `nanoTimeStart`, read by reflection).%n%n",
        Accuracy.LIMIT, THREADS, seconds, runs));
    out.append(table(engines, cells)).append('\n');
    out.append(WHY).append("\n\n");
    out.append("Admission time per engine:\n\n");
    for (RealEngine engine : engines) {
      out.append("- ").append(engine.label()).append(": ").append(engine.clock()).append('\n');
    }
    Cell queue = cells.get("weir-queue-wait");
    if (queue != null && queue.slotWorstSpan() >= 0) {
      out.append(String.format(Locale.ROOT, "%nWeir's queue rules read the clock once more after the limiter, when "
          + "the call proceeds (after its wait, if any): that is the reading the table uses, so a thread "
          + "descheduled between the decision and that reading, or woken late, shows as a later admission, "
          + "which can bring two admissions closer than the spacing. On the slot times the limiter assigned "
          + "(the reading it decided on, plus the wait), the worst span is %s (max wait 500 ms) and %s "
          + "(max wait 0).%n",
          Report.ratio(queue.slotWorstSpan()), Report.ratio(cells.get("weir-queue").slotWorstSpan())));
    }
    out.append('\n');
    return out.toString();
  }

  private static final String WHY = """
      Why: a 3 s run that starts idle holds up to four of a windowed engine's periods (the run begins \
      part-way into one), so the engines that refill or forget a whole window at once (Weir reject, \
      Sentinel, Resilience4j, Bucket4j, which also starts full) admit 4N in 3 s: rate 1.333, and 2N within \
      one second at a window edge, as on trace (a). `exact: true` and the queue modes keep to N per second \
      from the first call. Guava stores permits while idle, and each limiter is idle for the 50 ms between \
      its creation and the start of the threads: those pass at once, hence Guava's few percent above 1.00. \
      Sentinel's and Resilience4j's own-window cells above 1.00 are at least partly the harness's: their \
      time is read just before the call, and a thread descheduled between that reading and the engine's \
      own lands in the next window.""";

  static String table(List<RealEngine> engines, Map<String, Cell> cells) {
    StringBuilder out = new StringBuilder("| Engine (real clock, " + THREADS + " threads) | worst | rate | own window "
        + "| calls/s |\n| --- | ---: | ---: | ---: | ---: |\n");
    for (RealEngine engine : engines) {
      Cell cell = cells.get(engine.key());
      out.append("| ").append(engine.label()).append(" | ").append(Report.ratio(cell.worstSpan())).append(" | ")
          .append(String.format(Locale.ROOT, "%.3f", cell.ratePerInterval() / Accuracy.LIMIT)).append(" | ")
          .append(Report.ratio(cell.ownWindow())).append(" | ")
          .append(String.format(Locale.ROOT, "%,.0f", cell.attemptsPerSecond())).append(" |\n");
    }
    return out.toString();
  }
}
