package dev.weir.benchmarks.accuracy;

import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import com.google.common.util.concurrent.DrivenRateLimiters;
import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongConsumer;

/** The engines of the accuracy table: Weir's modes and the peers, each on a driven clock. */
final class Engines {

  /** Weir's ticker and Bucket4j's time meter read this plus trace time: a whole number of seconds. */
  static final long NANOS_BASE = 1_000_000L * 1_000_000_000L;
  /** Sentinel's first run starts at this epoch millisecond (a whole second); later runs further on. */
  static final long SENTINEL_FIRST_MILLIS = 1_700_000_000_000L;
  /** How far apart Sentinel runs start, so that its global state never sees time go back. */
  static final long SENTINEL_RUN_SPACING_MILLIS = 10_000_000L;
  /** Queue modes with waiting: the longest wait allowed. */
  static final Duration MAX_WAIT = Duration.ofMillis(500);

  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final AtomicLong SENTINEL_NEXT_BASE = new AtomicLong(SENTINEL_FIRST_MILLIS);

  private Engines() {
  }

  /** Every engine of the table, in row order. */
  static List<Engine> all() {
    return List.of(
        weir("weir", "Weir reject (default)", WeirWindow.BUCKETS,
            "`FlowRule.qps(res, N)`: sliding window of 10 buckets of 100 ms, one CAS per admission",
            r -> FlowRule.qps(r, 0)),
        weir("weir-exact", "Weir `exact: true`", 0,
            "`exact(true)`: ring of the last N admission times",
            r -> FlowRule.builder(r).exact(true).build()),
        weir("weir-queue", "Weir queue, max wait 0", 0,
            "`QUEUE`, `maxQueueingTime(0)`: a call that would wait is refused",
            r -> FlowRule.builder(r).controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(Duration.ZERO).build()),
        weir("weir-queue-wait", "Weir queue, max wait 500 ms", 0,
            "`QUEUE`, `maxQueueingTime(500ms)`: admitted at its slot, up to 500 ms after it arrived",
            r -> FlowRule.builder(r).controlBehavior(ControlBehavior.QUEUE).maxQueueingTime(MAX_WAIT).build()),
        sentinel(SentinelTime::set),
        resilience4j(),
        guava("guava", "Guava `tryAcquire()`", 0),
        guava("guava-wait", "Guava `tryAcquire(500 ms)`", MAX_WAIT.toNanos()),
        bucket4j());
  }

  /** The name of a fresh resource, so that Sentinel's global nodes never carry over between runs. */
  private static String resource(String key) {
    return "accuracy-" + key + "-" + RUNS.incrementAndGet();
  }

  // -----------------------------------------------------------------------------------------------
  // Weir

  /** Weir's window: 10 buckets per interval (WindowLimiter.BUCKETS, package-private in core). */
  static final class WeirWindow {
    static final int BUCKETS = 10;
  }

  static Engine weir(String key, String label, int ownBuckets, String setup, Function<String, FlowRule> shape) {
    return new Engine(key, label,
        setup,
        ownBuckets, (limit, intervalNanos) -> {
      String res = resource(key);
      FlowRule rule = shape.apply(res).toBuilder().count(limit).interval(Duration.ofNanos(intervalNanos)).build();
      AtomicLong ticker = new AtomicLong(NANOS_BASE);
      ThreadLocal<long[]> waited = ThreadLocal.withInitial(() -> new long[1]);
      Weir weir = Weir.builder()
          .ticker(ticker::get)
          .sleeper(nanos -> waited.get()[0] += nanos)
          .rules(RuleSet.of(rule))
          .build();
      return new Engine.Run() {
        @Override
        public void at(long traceNanos) {
          ticker.set(NANOS_BASE + traceNanos);
        }

        @Override
        public long attempt() {
          long[] wait = waited.get();
          wait[0] = 0;
          try (Entry entry = weir.entry(res)) {
            return wait[0];
          } catch (BlockException refused) {
            return -1;
          }
        }

        @Override
        public void close() {
          weir.close();
        }
      };
    });
  }

  // -----------------------------------------------------------------------------------------------
  // Sentinel

  /**
   * Sentinel with a QPS rule on a fresh resource. {@code setMillis} drives
   * {@code TimeUtil.currentTimeMillis()}: {@link SentinelTime#set} for every thread, or (in the
   * smoke test) a value a Mockito static stub returns, the way Sentinel's own tests do it.
   */
  static Engine sentinel(LongConsumer setMillis) {
    return new Engine("sentinel", "Sentinel reject (default)",
        "QPS `FlowRule`, default controller: 2 buckets of 500 ms (`SphU.entry` + `exit`)",
        2, (limit, intervalNanos) -> {
      if (intervalNanos != 1_000_000_000L) {
        throw new IllegalArgumentException("Sentinel QPS rules count per second");
      }
      SentinelSetup.configure();
      String res = resource("sentinel");
      long base = SENTINEL_NEXT_BASE.getAndAdd(SENTINEL_RUN_SPACING_MILLIS);
      setMillis.accept(base);
      com.alibaba.csp.sentinel.slots.block.flow.FlowRule rule =
          new com.alibaba.csp.sentinel.slots.block.flow.FlowRule(res);
      rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
      rule.setCount(limit);
      FlowRuleManager.loadRules(List.of(rule));
      return new Engine.Run() {
        @Override
        public void at(long traceNanos) {
          setMillis.accept(base + Math.floorDiv(traceNanos, 1_000_000L));
        }

        @Override
        public long attempt() {
          com.alibaba.csp.sentinel.Entry entry;
          try {
            entry = SphU.entry(res);
          } catch (com.alibaba.csp.sentinel.slots.block.BlockException refused) {
            return -1;
          }
          entry.exit();
          return 0;
        }

        @Override
        public void close() {
          FlowRuleManager.loadRules(List.of());
        }
      };
    });
  }

  /** Sentinel's process-wide settings, made before its classes first load. */
  static final class SentinelSetup {
    private static boolean done;

    static synchronized void configure() {
      if (done) {
        return;
      }
      java.nio.file.Path logs = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "weir-accuracy-sentinel-logs");
      if (System.getProperty("csp.sentinel.log.dir") == null) {
        System.setProperty("csp.sentinel.log.dir", logs.toString());
      }
      if (System.getProperty("EAGLEEYE.LOG.PATH") == null) {
        System.setProperty("EAGLEEYE.LOG.PATH", logs.resolve("eagleeye") + java.io.File.separator);
      }
      // No once-a-second metric log thread: it would read the driven clock from another thread.
      if (System.getProperty("csp.sentinel.metric.flush.interval") == null) {
        System.setProperty("csp.sentinel.metric.flush.interval", "0");
      }
      SentinelTime.install();
      done = true;
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Resilience4j

  /**
   * Resilience4j's default {@link AtomicRateLimiter}: N permits per 1 s cycle, timeout 0.
   *
   * <p>Its clock is {@code System.nanoTime() - nanoTimeStart} in a private method: no subclass or
   * spy can replace it, and Mockito cannot stub {@code System}. What can be driven is the private
   * final field {@code nanoTimeStart} (set by reflection before each step). Real nanoseconds still
   * pass between that write and the limiter's reading, so the reading would land a few microseconds
   * after the trace time, possibly across a cycle edge. With timeout 0 its decision depends only on
   * the cycle the reading falls in (a full refill per cycle; permits available now or refused), so
   * the harness sets the reading up to {@link #MARGIN_NANOS} before the trace time, never before
   * the start of the same cycle, and checks after the step that less real time than that margin
   * passed. A step that took longer (a GC pause) throws {@link Engine.ClockSlipped} and the run is
   * repeated. On the traces here, the decisions equal those of a clock reading the trace time.
   */
  static Engine resilience4j() {
    return new Engine("resilience4j", "Resilience4j `AtomicRateLimiter`",
        "`limitForPeriod N`, `limitRefreshPeriod 1s`, `timeoutDuration 0`, `acquirePermission()`: "
            + "fixed cycles from its creation",
        1, (limit, intervalNanos) -> {
      RateLimiter limiter = RateLimiter.of(resource("resilience4j"), RateLimiterConfig.custom()
          .limitForPeriod(limit)
          .limitRefreshPeriod(Duration.ofNanos(intervalNanos))
          .timeoutDuration(Duration.ZERO)
          .build());
      if (!(limiter instanceof AtomicRateLimiter)) {
        throw new IllegalStateException("expected AtomicRateLimiter, got " + limiter.getClass());
      }
      return new Engine.Run() {
        private long written;
        private long room;

        @Override
        public void at(long traceNanos) {
          long cycleStart = traceNanos - Math.floorMod(traceNanos, intervalNanos);
          long reading = Math.max(cycleStart, traceNanos - MARGIN_NANOS);
          room = cycleStart + intervalNanos - reading;
          written = System.nanoTime();
          setStart(limiter, written - reading);
        }

        @Override
        public long attempt() {
          return limiter.acquirePermission() ? 0 : -1;
        }

        @Override
        public void afterStep() {
          long elapsed = System.nanoTime() - written;
          if (elapsed >= room) {
            throw new Engine.ClockSlipped("a Resilience4j step took " + elapsed / 1_000_000 + " ms");
          }
        }
      };
    });
  }

  /** How far before the trace time Resilience4j's reading may be set (within the same cycle). */
  static final long MARGIN_NANOS = 50_000_000L;

  private static final Field NANO_TIME_START;

  static {
    try {
      NANO_TIME_START = AtomicRateLimiter.class.getDeclaredField("nanoTimeStart");
      NANO_TIME_START.setAccessible(true);
    } catch (NoSuchFieldException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Resilience4j's {@code nanoTimeStart}: where its cycles start on {@code System.nanoTime()}. */
  static long nanoTimeStart(RateLimiter limiter) {
    try {
      return NANO_TIME_START.getLong(limiter);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void setStart(RateLimiter limiter, long nanoTimeStart) {
    try {
      NANO_TIME_START.setLong(limiter, nanoTimeStart);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Guava

  /** Guava's smooth-bursty limiter (N per second, up to 1 s of permits stored), on a driven stopwatch. */
  static Engine guava(String key, String label, long timeoutNanos) {
    return new Engine(key, label,
        timeoutNanos == 0
            ? "`RateLimiter.create(N)`, `tryAcquire()`: smooth bursty, up to 1 s of unused permits stored"
            : "`RateLimiter.create(N)`, `tryAcquire(1, 500ms)`: admitted after its wait",
        0, (limit, intervalNanos) -> {
      AtomicLong micros = new AtomicLong();
      ThreadLocal<long[]> waited = ThreadLocal.withInitial(() -> new long[1]);
      com.google.common.util.concurrent.RateLimiter limiter = DrivenRateLimiters.create(
          limit * 1e9 / intervalNanos, micros::get, waitMicros -> waited.get()[0] += waitMicros);
      return new Engine.Run() {
        @Override
        public void at(long traceNanos) {
          micros.set(Math.floorDiv(traceNanos, 1_000L));
        }

        @Override
        public long attempt() {
          long[] wait = waited.get();
          wait[0] = 0;
          boolean admitted = timeoutNanos == 0
              ? limiter.tryAcquire()
              : limiter.tryAcquire(1, timeoutNanos, TimeUnit.NANOSECONDS);
          return admitted ? wait[0] * 1_000L : -1;
        }
      };
    });
  }

  // -----------------------------------------------------------------------------------------------
  // Bucket4j

  /** Bucket4j's local bucket: capacity N, greedy refill of N per interval, on a custom time meter. */
  static Engine bucket4j() {
    return new Engine("bucket4j", "Bucket4j token bucket",
        "capacity N, `refillGreedy(N, 1s)`, `tryConsume(1)`; starts full",
        0, (limit, intervalNanos) -> {
      AtomicLong nanos = new AtomicLong(NANOS_BASE);
      Bucket bucket = Bucket.builder()
          .addLimit(Bandwidth.builder().capacity(limit).refillGreedy(limit, Duration.ofNanos(intervalNanos)).build())
          .withCustomTimePrecision(new TimeMeter() {
            @Override
            public long currentTimeNanos() {
              return nanos.get();
            }

            @Override
            public boolean isWallClockBased() {
              return false;
            }
          })
          .build();
      return new Engine.Run() {
        @Override
        public void at(long traceNanos) {
          nanos.set(NANOS_BASE + traceNanos);
        }

        @Override
        public long attempt() {
          return bucket.tryConsume(1) ? 0 : -1;
        }
      };
    });
  }
}
