package dev.weir.benchmarks;

import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of one guarded call: Weir's {@code entry} + {@code close} beside the same case in its
 * peers. Benchmarks are named {@code <case>_<engine>}; {@code run.sh} puts each beside Weir's case.
 *
 * <p>Cases:
 * <ul>
 *   <li>{@code qps}: a rate rule that never refuses (admission + completion);
 *   <li>{@code rejected}: a rule that refuses every call (count 0, or an exhausted limiter);
 *   <li>{@code threads}: a concurrency rule that never refuses;
 *   <li>{@code warmUp}: a warm-up rule at a rate no benchmark thread reaches;
 *   <li>{@code queue}: a pacing (queue / rate-limiter) rule at a rate no benchmark thread reaches;
 *   <li>{@code noRule}: a resource without rules (statistics only).
 * </ul>
 *
 * <p>Every engine lives in its own {@link State}, set up only in the forks of its own benchmarks,
 * so one engine's global state (Sentinel's statics, its metric timer) cannot disturb another.
 * States are {@link Scope#Benchmark}: with {@code -t 2} both threads contend on one limiter.
 *
 * <p>A "never refusing" case that refuses anyway does not fail the run: the refusal is consumed and
 * counted in the {@code refused} secondary result ({@link Refusals}), which {@code run.sh} flags.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
public class CoreEntryBenchmark {

  /** A rate no benchmark thread comes near: 2e9 per second. */
  static final double NEVER_REFUSING_RATE = 2_000_000_000d;
  /** Weir paces (queue, warm-up) at most 1e9 calls per second, Bucket4j refills at most 1e9 tokens per second. */
  static final double NEVER_REFUSING_PACED_RATE = 1_000_000_000d;
  /**
   * Sentinel's warm-up keeps {@code warmUpPeriodSec * count} in an int: above ~2e8 per second its
   * token arithmetic overflows, so its warm-up case uses 1e8 (cold rate 3.3e7/s, still far beyond
   * what two benchmark threads reach through Sentinel).
   */
  static final double SENTINEL_WARM_UP_RATE = 100_000_000d;
  static final int NEVER_REFUSING_THREADS = 1_000_000;

  static final String RES = "res";

  /** The {@code weirPrecise} engines read the ticker on every call (the default before issue 38). */
  static final Duration PRECISE = Duration.ZERO;

  /**
   * Sentinel writes its logs (and a metric log every second) under ~/logs/csp, and EagleEye's under
   * ~/logs/eagleeye, by default: keeps them in the temporary folder. Call before Sentinel's first use.
   */
  static void keepSentinelLogsInTemp() {
    Path logs = Path.of(System.getProperty("java.io.tmpdir"), "weir-bench-sentinel-logs");
    if (System.getProperty("csp.sentinel.log.dir") == null) {
      System.setProperty("csp.sentinel.log.dir", logs.toString());
    }
    if (System.getProperty("EAGLEEYE.LOG.PATH") == null) {
      System.setProperty("EAGLEEYE.LOG.PATH", logs.resolve("eagleeye").toString() + java.io.File.separator);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // States: one per engine.

  /** Weir: one engine per case, each with its rule on {@value #RES}. */
  @State(Scope.Benchmark)
  public static class WeirState {
    Weir qps;
    Weir rejecting;
    Weir threads;
    /** A grade adaptive rule whose limit the calls never reach (issue 27). */
    Weir adaptive;
    Weir warmUp;
    Weir queue;
    Weir noRule;
    /** The same as qps, rejecting and noRule, reading the ticker on every call ({@code clockResolution(ZERO)}). */
    Weir qpsPrecise;
    Weir rejectingPrecise;
    Weir noRulePrecise;
    /** Handles ({@code Weir.resource}) on the default engines qps, rejecting and noRule. */
    Resource qpsResource;
    Resource rejectingResource;
    Resource noRuleResource;

    @Setup(Level.Trial)
    public void setUp() {
      qps = engine(FlowRule.qps(RES, NEVER_REFUSING_RATE));
      rejecting = engine(FlowRule.qps(RES, 0));
      threads = engine(FlowRule.threads(RES, NEVER_REFUSING_THREADS));
      adaptive = engine(FlowRule.adaptive(RES, 1, 1_000_000, 1_000_000));
      warmUp = engine(FlowRule.builder(RES).count(NEVER_REFUSING_PACED_RATE)
          .controlBehavior(ControlBehavior.WARM_UP).build());
      queue = engine(FlowRule.builder(RES).count(NEVER_REFUSING_PACED_RATE)
          .controlBehavior(ControlBehavior.QUEUE).build());
      noRule = Weir.builder().build();
      qpsPrecise = precise(FlowRule.qps(RES, NEVER_REFUSING_RATE));
      rejectingPrecise = precise(FlowRule.qps(RES, 0));
      noRulePrecise = Weir.builder().clockResolution(PRECISE).build();
      qpsResource = qps.resource(RES);
      rejectingResource = rejecting.resource(RES);
      noRuleResource = noRule.resource(RES);
    }

    private static Weir precise(FlowRule rule) {
      return Weir.builder().clockResolution(PRECISE).rules(RuleSet.of(rule)).build();
    }

    private static Weir engine(FlowRule rule) {
      return Weir.builder().rules(RuleSet.of(rule)).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      for (Weir weir : new Weir[] {qps, rejecting, threads, adaptive, warmUp, queue, noRule, qpsPrecise, rejectingPrecise,
          noRulePrecise}) {
        weir.close();
      }
    }
  }

  /** Sentinel: global rules, one resource per case. */
  @State(Scope.Benchmark)
  public static class SentinelState {
    static final String QPS = "sentinel-qps";
    static final String REJECTING = "sentinel-rejecting";
    static final String THREADS = "sentinel-threads";
    static final String WARM_UP = "sentinel-warm-up";
    static final String QUEUE = "sentinel-queue";
    static final String NO_RULE = "sentinel-no-rule";

    @Setup(Level.Trial)
    public void setUp() {
      keepSentinelLogsInTemp();
      FlowRuleManager.loadRules(List.of(
          rule(QPS, NEVER_REFUSING_RATE),
          rule(REJECTING, 0),
          rule(THREADS, NEVER_REFUSING_THREADS).setGrade(RuleConstant.FLOW_GRADE_THREAD),
          rule(WARM_UP, SENTINEL_WARM_UP_RATE).setControlBehavior(RuleConstant.CONTROL_BEHAVIOR_WARM_UP),
          rule(QUEUE, NEVER_REFUSING_PACED_RATE).setControlBehavior(RuleConstant.CONTROL_BEHAVIOR_RATE_LIMITER)));
    }

    private static com.alibaba.csp.sentinel.slots.block.flow.FlowRule rule(String resource, double count) {
      com.alibaba.csp.sentinel.slots.block.flow.FlowRule rule =
          new com.alibaba.csp.sentinel.slots.block.flow.FlowRule(resource);
      rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
      rule.setCount(count);
      return rule;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      FlowRuleManager.loadRules(List.of());
    }
  }

  /** Resilience4j's default (atomic) rate limiter, never waiting for a permit. */
  @State(Scope.Benchmark)
  public static class Resilience4jState {
    RateLimiter permissive;
    RateLimiter exhausted;

    @Setup(Level.Trial)
    public void setUp() {
      permissive = RateLimiter.of("permissive", RateLimiterConfig.custom()
          .limitForPeriod((int) NEVER_REFUSING_RATE)
          .limitRefreshPeriod(Duration.ofSeconds(1))
          .timeoutDuration(Duration.ZERO)
          .build());
      exhausted = RateLimiter.of("exhausted", RateLimiterConfig.custom()
          .limitForPeriod(1)
          .limitRefreshPeriod(Duration.ofDays(1))
          .timeoutDuration(Duration.ZERO)
          .build());
      exhausted.acquirePermission(); // the only permit of the day
    }
  }

  /** Bucket4j's default local bucket (lock-free), greedy refill. */
  @State(Scope.Benchmark)
  public static class Bucket4jState {
    Bucket permissive;
    Bucket exhausted;

    @Setup(Level.Trial)
    public void setUp() {
      // Bucket4j refills at most one token per nanosecond.
      long rate = (long) NEVER_REFUSING_PACED_RATE;
      permissive = Bucket.builder()
          .addLimit(Bandwidth.builder().capacity(rate).refillGreedy(rate, Duration.ofSeconds(1)).build())
          .build();
      exhausted = Bucket.builder()
          .addLimit(Bandwidth.builder().capacity(1).refillIntervally(1, Duration.ofDays(1)).initialTokens(0).build())
          .build();
    }
  }

  /** Guava's smooth-bursty rate limiter. */
  @State(Scope.Benchmark)
  @SuppressWarnings("UnstableApiUsage")
  public static class GuavaState {
    com.google.common.util.concurrent.RateLimiter permissive;
    com.google.common.util.concurrent.RateLimiter exhausted;

    @Setup(Level.Trial)
    public void setUp() {
      permissive = com.google.common.util.concurrent.RateLimiter.create(NEVER_REFUSING_RATE);
      exhausted = com.google.common.util.concurrent.RateLimiter.create(1e-6); // one permit per ~12 days
      exhausted.tryAcquire(); // a fresh limiter grants its first permit at once
    }
  }

  /**
   * Refusals in a case meant never to refuse; reported as the secondary result {@code refused}
   * (per thread and iteration, summed). Touched only on the refusal path.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Refusals {
    public long refused;

    @Setup(Level.Iteration)
    public void reset() {
      refused = 0;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // qps: a rate rule that never refuses.

  @Benchmark
  public void qps_weir(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.qps, r, bh);
  }

  @Benchmark
  public void qps_weirPrecise(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.qpsPrecise, r, bh);
  }

  @Benchmark
  public void qps_weirResource(WeirState s, Refusals r, Blackhole bh) {
    resourceEntry(s.qpsResource, r, bh);
  }

  @Benchmark
  public void qps_sentinel(SentinelState s, Refusals r, Blackhole bh) {
    sentinelEntry(SentinelState.QPS, r, bh);
  }

  @Benchmark
  public boolean qps_resilience4j(Resilience4jState s) {
    return s.permissive.acquirePermission();
  }

  @Benchmark
  public boolean qps_bucket4j(Bucket4jState s) {
    return s.permissive.tryConsume(1);
  }

  @Benchmark
  public boolean qps_guava(GuavaState s) {
    return s.permissive.tryAcquire();
  }

  // ---------------------------------------------------------------------------------------------
  // rejected: every call refused.

  @Benchmark
  public void rejected_weir(WeirState s, Blackhole bh) {
    try (Entry e = s.rejecting.entry(RES)) {
      bh.consume(e);
    } catch (BlockException b) {
      bh.consume(b);
    }
  }

  @Benchmark
  public void rejected_weirPrecise(WeirState s, Blackhole bh) {
    try (Entry e = s.rejectingPrecise.entry(RES)) {
      bh.consume(e);
    } catch (BlockException b) {
      bh.consume(b);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // rejectedTry: every call refused, answered by tryEntry with null (no exception).

  @Benchmark
  public @Nullable Entry rejectedTry_weir(WeirState s) {
    return s.rejecting.tryEntry(RES, EntryType.OUT, 1);
  }

  @Benchmark
  public @Nullable Entry rejectedTry_weirPrecise(WeirState s) {
    return s.rejectingPrecise.tryEntry(RES, EntryType.OUT, 1);
  }

  @Benchmark
  public @Nullable Entry rejectedTry_weirResource(WeirState s) {
    return s.rejectingResource.tryEntry(EntryType.OUT, 1);
  }

  @Benchmark
  public void rejected_sentinel(SentinelState s, Blackhole bh) {
    try {
      com.alibaba.csp.sentinel.Entry e = SphU.entry(SentinelState.REJECTING);
      try {
        bh.consume(e);
      } finally {
        e.exit();
      }
    } catch (com.alibaba.csp.sentinel.slots.block.BlockException b) {
      bh.consume(b);
    }
  }

  @Benchmark
  public boolean rejected_resilience4j(Resilience4jState s) {
    return s.exhausted.acquirePermission();
  }

  @Benchmark
  public boolean rejected_bucket4j(Bucket4jState s) {
    return s.exhausted.tryConsume(1);
  }

  @Benchmark
  public boolean rejected_guava(GuavaState s) {
    return s.exhausted.tryAcquire();
  }

  // ---------------------------------------------------------------------------------------------
  // threads: a concurrency rule that never refuses.

  @Benchmark
  public void threads_weir(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.threads, r, bh);
  }

  // ---------------------------------------------------------------------------------------------
  // adaptive: a grade adaptive rule that never refuses (Weir only: no peer has one in this form).

  @Benchmark
  public void adaptive_weir(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.adaptive, r, bh);
  }

  @Benchmark
  public void threads_sentinel(SentinelState s, Refusals r, Blackhole bh) {
    sentinelEntry(SentinelState.THREADS, r, bh);
  }

  // ---------------------------------------------------------------------------------------------
  // warmUp: a warm-up rule at a rate never reached.

  @Benchmark
  public void warmUp_weir(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.warmUp, r, bh);
  }

  @Benchmark
  public void warmUp_sentinel(SentinelState s, Refusals r, Blackhole bh) {
    sentinelEntry(SentinelState.WARM_UP, r, bh);
  }

  // ---------------------------------------------------------------------------------------------
  // queue: a pacing rule at a rate never reached, so a call should never wait.

  @Benchmark
  public void queue_weir(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.queue, r, bh);
  }

  @Benchmark
  public void queue_sentinel(SentinelState s, Refusals r, Blackhole bh) {
    sentinelEntry(SentinelState.QUEUE, r, bh);
  }

  // ---------------------------------------------------------------------------------------------
  // noRule: a resource without rules.

  @Benchmark
  public void noRule_weir(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.noRule, r, bh);
  }

  @Benchmark
  public void noRule_weirPrecise(WeirState s, Refusals r, Blackhole bh) {
    weirEntry(s.noRulePrecise, r, bh);
  }

  @Benchmark
  public void noRule_weirResource(WeirState s, Refusals r, Blackhole bh) {
    resourceEntry(s.noRuleResource, r, bh);
  }

  @Benchmark
  public void noRule_sentinel(SentinelState s, Refusals r, Blackhole bh) {
    sentinelEntry(SentinelState.NO_RULE, r, bh);
  }

  // ---------------------------------------------------------------------------------------------

  private static void weirEntry(Weir weir, Refusals r, Blackhole bh) {
    try (Entry e = weir.entry(RES)) {
      bh.consume(e.acquireCount());
    } catch (BlockException b) {
      r.refused++;
      bh.consume(b);
    }
  }

  private static void resourceEntry(Resource resource, Refusals r, Blackhole bh) {
    try (Entry e = resource.entry()) {
      bh.consume(e.acquireCount());
    } catch (BlockException b) {
      r.refused++;
      bh.consume(b);
    }
  }

  private static void sentinelEntry(String resource, Refusals r, Blackhole bh) {
    try {
      com.alibaba.csp.sentinel.Entry e = SphU.entry(resource);
      try {
        bh.consume(e);
      } finally {
        e.exit();
      }
    } catch (com.alibaba.csp.sentinel.slots.block.BlockException b) {
      r.refused++;
      bh.consume(b);
    }
  }
}
