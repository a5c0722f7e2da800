package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.internal.call.Call;
import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.Quota;
import dev.weir.RealTimeRun;
import dev.weir.Weir;
import dev.weir.internal.time.EngineClock;
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
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@link Weir#quotas} reads from each kind of limiter, on a driven ticker and under real threads. */
class QuotaTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L); // a whole number of seconds

  private Weir engine(RuleSet rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(rules).build();
  }

  private static int admit(Weir weir, int attempts, Object... args) {
    return admit(weir, "r", attempts, args);
  }

  private static int admit(Weir weir, String resource, int attempts, Object... args) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      try (Entry entry = weir.entry(resource, EntryType.IN, 1, args)) {
        admitted++;
      } catch (BlockException refused) {
        // counted by the caller
      }
    }
    return admitted;
  }

  @Test
  void slidingWindowRemainingAndUntilMoreFollowItsBuckets() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("r").count(10).interval(Duration.ofSeconds(10)).build()));
    assertThat(weir.quotas("r")).containsExactly(new Quota(RuleKind.FLOW, 0, null, 10, Duration.ofSeconds(10), 10,
        Duration.ZERO));
    assertThat(admit(weir, 4)).isEqualTo(4);                       // bucket 0 (1 s buckets)
    ticker.advance(Duration.ofMillis(2500));
    assertThat(admit(weir, 3)).isEqualTo(3);                       // bucket 2
    Quota q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isEqualTo(3);
    // one more once bucket 0 leaves the window, when bucket 10 starts: 7.5 s from now (not 9.5 s,
    // when bucket 2 leaves too and the window is empty)
    assertThat(q.untilMore()).isEqualTo(Duration.ofMillis(7500));
    ticker.advance(Duration.ofMillis(8000));                       // 10.5 s: bucket 0 has left
    q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isEqualTo(7);
    assertThat(q.untilMore()).isEqualTo(Duration.ofMillis(1500));
    ticker.advance(Duration.ofMillis(1500));
    assertThat(weir.quotas("r").get(0).remaining()).isEqualTo(10);
    assertThat(weir.quotas("r").get(0).untilMore()).as("nothing counted: nothing more to come").isZero();
  }

  @Test
  void slidingWindowHoldingMoreThanALoweredCountWaitsUntilEnoughBucketsLeave() {
    FlowRule rule = FlowRule.builder("r").count(10).interval(Duration.ofSeconds(10)).build();
    Weir weir = engine(RuleSet.of(rule));
    assertThat(admit(weir, 2)).isEqualTo(2);                       // bucket 0
    ticker.advance(Duration.ofSeconds(1));
    assertThat(admit(weir, 3)).isEqualTo(3);                       // bucket 1
    ticker.advance(Duration.ofSeconds(1));
    assertThat(admit(weir, 3)).isEqualTo(3);                       // bucket 2
    weir.rules().replace("r", RuleSet.of(rule.toBuilder().count(4).build())); // the window carries over
    Quota q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isZero();
    // 8 counted against 4: one call fits once 5 have left, buckets 0 and 1, at 11 s: 9 s from now
    assertThat(q.untilMore()).isEqualTo(Duration.ofSeconds(9));
    ticker.advance(Duration.ofSeconds(9).minusNanos(1));
    assertThat(admit(weir, 1)).as("a nanosecond early").isZero();
    ticker.advanceNanos(1);
    assertThat(admit(weir, 5)).as("bucket 2's 3 are left against 4").isEqualTo(1);
  }

  @Test
  void exactWindowCountsTheAdmissionsOfTheLastInterval() {
    Weir weir = engine(RuleSet.of(FlowRule.builder("r").count(5).exact(true).build()));
    assertThat(admit(weir, 2)).isEqualTo(2);
    ticker.advance(Duration.ofMillis(600));
    assertThat(admit(weir, 9)).isEqualTo(3);
    Quota q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isZero();
    assertThat(q.untilMore()).as("the oldest admission ages out 1 s after it").isEqualTo(Duration.ofMillis(400));
    ticker.advance(Duration.ofMillis(400));                         // the first two age out
    q = weir.quotas("r").get(0);
    assertThat(q.remaining()).isEqualTo(2);
    assertThat(q.untilMore()).isEqualTo(Duration.ofMillis(600));
    assertThat(admit(weir, 9)).as("what the reading said").isEqualTo(2);
  }

  @Test
  void tokenBucketPerKeyShowsItsTokensAndTheTimeToTheNext() {
    Weir weir = engine(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").count(4)
        .duration(Duration.ofSeconds(2)).burst(1).exceptions(List.of(new ParamFlowItem("vip", 8))).build())));
    assertThat(weir.quotas("r", "a")).as("a key not seen yet has its full bucket")
        .containsExactly(new Quota(RuleKind.PARAM_FLOW, 0, null, 4, Duration.ofSeconds(2), 5, Duration.ZERO));
    assertThat(admit(weir, 3, "a")).isEqualTo(3);
    Quota q = weir.quotas("r", "a").get(0);
    assertThat(q.remaining()).isEqualTo(2);
    assertThat(q.untilMore()).as("one token every 500 ms (not 1.5 s, until full)").isEqualTo(Duration.ofMillis(500));
    ticker.advance(Duration.ofMillis(300));
    q = weir.quotas("r", "a").get(0);
    assertThat(q.remaining()).isEqualTo(2);
    assertThat(q.untilMore()).isEqualTo(Duration.ofMillis(200));
    ticker.advance(Duration.ofMillis(200));
    assertThat(weir.quotas("r", "a").get(0).remaining()).isEqualTo(3);
    assertThat(weir.quotas("r", "b").get(0).remaining()).as("another key").isEqualTo(5);
    assertThat(weir.quotas("r", "vip").get(0).limit()).as("an exception's own count").isEqualTo(8);
    assertThat(weir.quotas("r", "vip").get(0).remaining()).isEqualTo(9);
    assertThat(weir.quotas("r", List.of("a", "b"))).as("one quota per element: none is told").isEmpty();
  }

  /**
   * The example of the draft's t: 3 per 30 s. Each limiter, read after each call and at the refusal:
   * the window and the exact window free their permits when the call that took them ages out, the
   * bucket one every 10 s; at the refusal, t is the refusal's retry-after.
   */
  @Test
  void threePerThirtySecondsOnEachLimiter() {
    Duration thirty = Duration.ofSeconds(30);
    Weir weir = engine(new RuleSet(List.of(FlowRule.builder("window").count(3).interval(thirty).build(),
        FlowRule.builder("exact").count(3).interval(thirty).exact(true).build()), List.of(),
        List.of(ParamFlowRule.builder("bucket").count(3).duration(thirty).build()), List.of()));
    long[] seconds = {30, 20, 10};
    for (String resource : List.of("window", "exact")) {
      for (int i = 0; i < 3; i++) {
        ticker.advance(Duration.ofSeconds(i == 0 ? 0 : 10));        // calls at 0, 10 and 20 s
        assertThat(Calls.tryOnce(weir, resource)).isNull();
        Quota q = weir.quotas(resource).get(0);
        assertThat(q.remaining()).as(resource).isEqualTo(2 - i);
        assertThat(q.untilMore()).as(resource + " after call " + i).isEqualTo(Duration.ofSeconds(seconds[i]));
      }
      BlockException refused = Calls.tryOnce(weir, resource);
      assertThat(refused).isNotNull();
      assertThat(refused.retryAfter()).isEqualTo(weir.quotas(resource).get(0).untilMore())
          .isEqualTo(Duration.ofSeconds(10));
      ticker.advance(Duration.ofSeconds(100));
    }
    for (int i = 0; i < 3; i++) {
      assertThat(admit(weir, "bucket", 1, "k")).isEqualTo(1);
      Quota q = weir.quotas("bucket", "k").get(0);
      assertThat(q.remaining()).isEqualTo(2 - i);
      assertThat(q.untilMore()).as("bucket after call " + i).isEqualTo(Duration.ofSeconds(10));
    }
    assertThat(admit(weir, "bucket", 1, "k")).isZero();
    try (Entry entry = weir.entry("bucket", EntryType.IN, 1, "k")) {
      throw new AssertionError("admitted");
    } catch (BlockException refused) {
      assertThat(refused.retryAfter()).isEqualTo(weir.quotas("bucket", "k").get(0).untilMore())
          .isEqualTo(Duration.ofSeconds(10));
    }
  }

  /**
   * Random traffic on each limiter, with odd counts, spans and times (fixed seed). At each check,
   * the reading (r, t) is taken from a replica of the limiter, and three more replicas, built by
   * replaying the same traffic on tickers of their own, show what it promised: r calls of one
   * permit pass at the reading and the next is refused (with retry-after t when r is 0); a
   * nanosecond before t still only r pass; at t at least r + 1 pass; and when t is 0, r is all
   * that ever passes at once.
   */
  @Test
  void readingsPromiseExactlyWhatTheLimiterAdmits() {
    Random random = new Random(20_250_925L);
    long[] spans = {TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(30), TimeUnit.MILLISECONDS.toNanos(7),
        TimeUnit.MILLISECONDS.toNanos(10)};
    double[] counts = {1, 3, 7, 10, 100, 2.5};
    int checks = 0;
    for (int round = 0; round < 60; round++) {
      long span = spans[random.nextInt(spans.length)];
      double count = counts[random.nextInt(counts.length)];
      int burst = random.nextInt(3) * 2;
      for (String kind : List.of("window", "exact", "bucket")) {
        if (!kind.equals("bucket") && count != Math.rint(count)) {
          continue;
        }
        List<long[]> script = new ArrayList<>(); // {advance nanos, permits}
        for (int step = 0; step < 30; step++) {
          script.add(new long[] {(long) (random.nextDouble() * span / 3), 1 + random.nextInt(3)});
          if (random.nextInt(3) > 0) {
            continue;
          }
          String what = kind + " " + count + " per " + span + "ns, burst " + burst + ", step " + step;
          Replica reading = new Replica(kind, span, count, burst, script);
          long[] out = new long[2];
          assertThat(reading.limiter.readQuota(reading.ticker.read(), out)).isTrue();
          long r = out[0];
          long t = out[1];
          assertThat(t).as(what).isNotNegative();

          Replica now = new Replica(kind, span, count, burst, script);
          long first = now.limiter.tryAcquire(1, now.ticker.read());
          if (r == 0) {
            assertThat(first).as(what + ": r=0").isNegative();
            assertThat(FlowLimiter.retryAfterNanos(first)).as(what + ": t is the retry-after").isEqualTo(t);
          } else {
            assertThat(first).as(what).isNotNegative();
            assertThat(1 + now.admitted(r + 5)).as(what + ": r pass now").isEqualTo(r);
          }
          if (t > 0) {
            Replica early = new Replica(kind, span, count, burst, script);
            early.ticker.advanceNanos(t - 1);
            assertThat(early.admitted(r + 5)).as(what + ": a nanosecond before t").isEqualTo(r);
            Replica late = new Replica(kind, span, count, burst, script);
            late.ticker.advanceNanos(t);
            assertThat(late.admitted(r + 5)).as(what + ": at t").isGreaterThan(r);
          } else {
            Replica later = new Replica(kind, span, count, burst, script);
            later.ticker.advanceNanos(3 * span);
            assertThat(later.admitted(r + 5)).as(what + ": t=0, r is all it ever admits").isEqualTo(r);
          }
          checks++;
        }
      }
    }
    assertThat(checks).isGreaterThan(300);
  }

  /** A limiter on a ticker of its own, brought to a state by replaying {advance, permits} steps. */
  private static final class Replica {
    final FakeTicker ticker = new FakeTicker();
    final FlowLimiter limiter;

    Replica(String kind, long span, double count, int burst, List<long[]> script) {
      EngineClock clock = new EngineClock(ticker, ticker);
      limiter = switch (kind) {
        case "window" -> new WindowLimiter(span, count, clock, ticker.read());
        case "exact" -> new ExactLimiter(span, count, clock, ticker.read());
        default -> new TokenBucketLimiter(span, count, burst, clock, ticker.read());
      };
      for (long[] step : script) {
        ticker.advanceNanos(step[0]);
        limiter.tryAcquire((int) step[1], ticker.read());
      }
    }

    /** Calls of one permit at the ticker's reading, up to {@code attempts}, until one is refused. */
    long admitted(long attempts) {
      long admitted = 0;
      while (admitted < attempts && limiter.tryAcquire(1, ticker.read()) >= 0) {
        admitted++;
      }
      return admitted;
    }
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
    assertThat(weir.quotas("r")).extracting(Quota::name).containsOnlyNulls();
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
      assertThat(limiter.tryAcquire((int) out[0], ticker.read())).as("and the ones it reports are there")
          .isNotNegative();
      ticker.advance(Duration.ofSeconds(5));
    }
  }

  /**
   * Real threads: a reader takes its clock reading and waits while four threads take permits at
   * later readings; then it reads the quota with its old reading. What it reports must still be
   * there: its {@code r} at the present, and one more at its {@code t} (checked on a twin limiter
   * that took the same permits at the same readings, since checking takes them).
   */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aReaderHoldingAnOldReadingNeverPromisesMore() throws Exception {
    long second = TimeUnit.SECONDS.toNanos(1);
    for (String kind : List.of("window", "exact", "bucket")) {
      FakeTicker time = new FakeTicker();
      EngineClock clock = new EngineClock(time, time);
      FlowLimiter shared = limiter(kind, second, clock, time.read());
      FlowLimiter twin = limiter(kind, second, clock, time.read());
      take(shared, 30, time.read());
      take(twin, 30, time.read());
      time.advance(Duration.ofMillis(150));

      CountDownLatch holding = new CountDownLatch(1);
      CountDownLatch others = new CountDownLatch(1);
      long[] reading = new long[2];
      long[] held = new long[1];
      Thread reader = new Thread(() -> {
        held[0] = time.read();                                       // the reading it holds
        holding.countDown();
        try {
          if (others.await(10, TimeUnit.SECONDS)) {
            shared.readQuota(held[0], reading);
          }
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
        }
      });
      reader.setDaemon(true); // ends with the test whatever happens: every wait above is bounded
      reader.start();
      assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
      time.advance(Duration.ofMillis(400));                          // others proceed, in later buckets
      AtomicInteger taken = new AtomicInteger();
      List<Thread> takers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Thread taker = new Thread(() -> taken.addAndGet(take(shared, 10, time.read())));
        taker.setDaemon(true);
        takers.add(taker);
      }
      takers.forEach(Thread::start);
      for (Thread taker : takers) {
        taker.join(10_000);
        assertThat(taker.isAlive()).isFalse();
      }
      assertThat(take(twin, taken.get(), time.read())).isEqualTo(taken.get());
      others.countDown();
      reader.join(10_000);
      assertThat(reader.isAlive()).isFalse();

      long r = reading[0];
      long t = reading[1];
      long now = time.read();
      assertThat(r).as(kind + ": the permits taken after the reading count").isLessThanOrEqualTo(100 - 30 - taken.get());
      assertThat(take(shared, (int) r, now)).as(kind + ": r pass at the present").isEqualTo((int) r);
      assertThat(t).as(kind).isPositive();
      long then = Math.max(held[0] + t, now);
      time.advanceNanos(then - now);
      assertThat(take(twin, (int) r + 1, time.read())).as(kind + ": one more at the reading's t")
          .isEqualTo((int) r + 1);
    }
  }

  private static FlowLimiter limiter(String kind, long span, EngineClock clock, long now) {
    return switch (kind) {
      case "window" -> new WindowLimiter(span, 100, clock, now);
      case "exact" -> new ExactLimiter(span, 100, clock, now);
      default -> new TokenBucketLimiter(span, 100, 0, clock, now);
    };
  }

  /** Takes up to {@code permits} one at a time at {@code now}; returns how many passed. */
  private static int take(FlowLimiter limiter, int permits, long now) {
    int admitted = 0;
    while (admitted < permits && limiter.tryAcquire(1, now) >= 0) {
      admitted++;
    }
    return admitted;
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
            admissions.add(((Call) entry).startNanos());
          } catch (BlockException refused) {
            Thread.onSpinWait();
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    List<String> violations = new ArrayList<>();
    int readings = 0;
    boolean[] usedUp = {false};
    long started = System.nanoTime();
    // 2 s, and until a reading found the window used up (RealTimeRun).
    while (RealTimeRun.again(started, Duration.ofSeconds(2), () -> usedUp[0])) {
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
      usedUp[0] |= remaining == 0;
      readings++;
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(10_000);
      assertThat(thread.isAlive()).isFalse();
    }
    assertThat(readings).isPositive();
    assertThat(violations).isEmpty();
    assertThat(usedUp[0]).as("the window was used up at some point").isTrue();
    // By the engine's own readings: at most 200 in any ten consecutive buckets of those they span.
    long first = admissions.stream().mapToLong(Long::longValue).min().orElseThrow();
    long last = admissions.stream().mapToLong(Long::longValue).max().orElseThrow();
    long buckets = Math.floorDiv(last, bucketNanos) - Math.floorDiv(first, bucketNanos) + 1;
    assertThat((long) admissions.size()).as("admissions in %d buckets", buckets)
        .isLessThanOrEqualTo((buckets + 9) / 10 * 200);
    Thread.sleep(1100);
    assertThat(weir.quotas("r").get(0).remaining()).as("a second of quiet empties the window").isEqualTo(200);
  }
}
