package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.MARGIN;
import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.millis;
import static dev.weir.spring.cluster.ClusterFaults.props;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ClusterStatus;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.cluster.ClusterFaults.Counts;
import dev.weir.spring.cluster.ClusterFaults.Load;
import dev.weir.spring.cluster.ClusterFaults.Recovery;
import dev.weir.spring.cluster.ClusterFaults.Sampler;
import dev.weir.spring.cluster.ClusterFaults.Window;
import dev.weir.spring.test.RedisServer;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Redis failing under load: killed, then restarted empty; frozen with SIGSTOP, then resumed. Many
 * threads call a cluster-mode rule the whole time; every call is timed and its outcome counted.
 *
 * <p>The rule's engine waits at most 50 ms for Redis, opens its breaker after 3 failures in a row
 * for 200 ms, and falls back to a local limiter of the same count. What must hold whatever the
 * timing, on a machine busy with other work too: no call throws anything but the rule's {@code
 * FlowException}, no call waits by its own doing longer than the deadline and a small margin
 * ({@link ClusterFaults#MARGIN}), every decision is counted once (by the store or by the fallback),
 * no decision is counted as made by Redis that Redis could not have made, the breaker keeps calls
 * away from a dead Redis (the decisions that waited out the deadline are bounded by the engine's
 * own limits, not by how many calls were made), and Redis decides again once it is back. Each
 * drill runs for each rule shape of {@link ClusterFaults#SHAPES}, each decided by its own script.
 */
class ClusterFaultTests extends WithRedisServer {

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final Duration OPEN = Duration.ofMillis(200);
  private static final int FAILURE_THRESHOLD = 3;


  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "exact", "two", "lease-window", "lease-exact"})
  void redisKilledMidRunFallsBackToTheLocalLimiterWithinTheDeadlineAndRecoversAfterARestart(String shape) {
    int count = 50;
    int threads = 8;
    ConfigurableApplicationContext context = start(redis.port(), shape(shape, "weir.flow[0].count", Integer.toString(count)));
    Load load = null;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);

      Counts initial = Counts.of(status);
      load = new Load("kill", threads, TIMEOUT, guarded::call);
      new Sampler(status).sampleFor(Duration.ofMillis(300));
      await("Redis refuses a call of the load", () -> status.blocked() > initial.blocked());
      Counts atKill = Counts.of(status);

      long killFrom = load.now();
      redis.kill(); // returns once the process is dead and its port refuses connections
      long killed = load.now();
      afterLastAnswers(shape);
      Counts dead = Counts.of(status);
      Sampler outage = new Sampler(status);
      outage.sampleFor(Duration.ofMillis(100));
      Counts outageStart = Counts.of(status);
      // 1.4 s more, not a whole interval: an exact local window admits its first count at the kill
      // and the next exactly one interval later, which must fall inside the window counted below,
      // not on its edge bucket.
      outage.sampleFor(Duration.ofMillis(1_400));
      Counts outageEnd = Counts.of(status);

      long restartFrom = load.now();
      redis.restart();
      long restarted = load.now();
      Recovery recovery = Recovery.after("its restart", status, load, outageEnd);
      long recoveryNanos = recovery.nanos();
      long recovered = recovery.at();
      Sampler after = recovery.sampler();
      Counts end = recovery.end();

      Window all = load.all();
      Window normal = load.window(0, killFrom);
      Window down = load.window(killed, restartFrom);
      Window back = load.window(recovered, load.now());
      Counts run = end.minus(initial);
      long ownWait = load.longestOwnWait();
      System.out.printf("[kill] all{%s} normal{%s} down{%s} back{%s}%n  store before kill{%s} during outage{%s}"
              + " whole run{%s}%n  kill took %d ms, restart %d ms, recovered %d ms after restart; longest own wait"
              + " %d ms; outage sampler{%s}%n",
          all, normal, down, back, atKill.minus(initial), outageEnd.minus(outageStart), run,
          millis(killed - killFrom), millis(restarted - restartFrom), millis(recoveryNanos), millis(ownWait), outage);

      assertThat(load.unexpected()).as("what callers saw besides FlowException (%d)", load.unexpectedCount())
          .isEmpty();
      assertThat(ownWait).as("the longest a call waited by its own doing, ns (the longest call took %d ms)",
          millis(all.maxNanos())).isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toNanos());
      assertThat(all.passed() + all.blocked()).isEqualTo(all.attempts());
      assertThat(run.decisions()).as("one decision per call: " + run).isEqualTo(all.attempts());
      assertThat(all.passed() - run.admitted()).as("admitted by the local limiter")
          .isBetween(0L, run.fallbacks());

      Counts beforeKill = atKill.minus(initial);
      assertThat(beforeKill.admitted()).as("Redis admitted before the kill").isPositive();
      assertThat(beforeKill.blocked()).as("Redis refused before the kill").isPositive();

      // Once the process is dead, Redis can have decided only what it answered before: at most one
      // decision per load thread, each in flight or answered and not yet counted by its caller.
      Counts afterDeath = outageEnd.minus(dead);
      assertThat(afterDeath.admitted() + afterDeath.blocked()).as("counted as decided by Redis after its death")
          .isLessThanOrEqualTo(threads);
      Counts during = outageEnd.minus(outageStart);
      assertThat(during.fallbacks()).isPositive();
      assertThat(during.fallbacks(FallbackReason.BREAKER_OPEN)).as("kept away by the open breaker").isPositive();
      assertThat(outage.openSeen).as("the breaker was seen open").isTrue();
      // The local limiter decides: some calls pass, far fewer than were made, within its own count.
      assertThat(down.passed()).isPositive()
          .isLessThanOrEqualTo(localBound(count, Duration.ofSeconds(1), restartFrom - killed, down.maxNanos()));
      assertThat(down.blocked()).isGreaterThan(down.passed());

      assertThat(after.closedSeen).isTrue();
      assertThat(end.admitted()).isGreaterThan(outageEnd.admitted());
      assertThat(back.attempts()).isPositive();
    } finally {
      if (load != null) {
        load.close();
      }
      context.close();
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "exact", "two", "lease-window", "lease-exact"})
  void redisFrozenForTwoSecondsCostsNoWaitBeyondTheDeadlineNoThreadAndNoMoreThanMaxInFlight(String shape) {
    int maxInFlight = 8;
    int threads = 16;
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.max-in-flight", Integer.toString(maxInFlight),
        "weir.flow[0].count", "100"));
    Load load = null;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);

      Counts initial = Counts.of(status);
      load = new Load("pause", threads, TIMEOUT, guarded::call);
      Sampler normal = new Sampler(status);
      normal.sampleFor(Duration.ofMillis(300));
      await("Redis admits a call of the load", () -> status.admitted() > initial.admitted());
      Counts atPause = Counts.of(status);
      int threadsBefore = Sampler.liveThreads();

      long pauseFrom = load.now();
      redis.pause();
      long paused = load.now();
      afterLastAnswers(shape);
      Counts frozenFrom = Counts.of(status);
      Sampler frozen = new Sampler(status);
      frozen.sampleFor(Duration.ofMillis(100));
      Counts frozenStart = Counts.of(status);
      frozen.sampleFor(Duration.ofMillis(1_900));
      Counts frozenEnd = Counts.of(status);

      long resumeFrom = load.now();
      redis.resume();
      Recovery recovery = Recovery.after("SIGCONT", status, load, frozenEnd);
      long recoveryNanos = recovery.nanos();
      long recovered = recovery.at();
      Sampler after = recovery.sampler();
      Counts end = recovery.end();

      Window all = load.all();
      Window stopped = load.window(paused, resumeFrom);
      Window back = load.window(recovered, load.now());
      Counts run = end.minus(initial);
      Counts during = frozenEnd.minus(frozenStart);
      Counts wholeFreeze = frozenEnd.minus(frozenFrom);
      long ownWait = load.longestOwnWait();
      System.out.printf("[pause] all{%s} frozen{%s} back{%s}%n  store before pause{%s} while frozen{%s}"
              + " whole freeze{%s} whole run{%s}%n  SIGSTOP took %d ms, recovered %d ms after SIGCONT; longest own"
              + " wait %d ms; threads before %d; normal sampler{%s} frozen sampler{%s}%n",
          all, stopped, back, atPause.minus(initial), during, wholeFreeze, run, millis(paused - pauseFrom),
          millis(recoveryNanos), millis(ownWait), threadsBefore, normal, frozen);

      assertThat(load.unexpected()).as("what callers saw besides FlowException (%d)", load.unexpectedCount())
          .isEmpty();
      assertThat(ownWait).as("the longest a call waited by its own doing, ns (the longest call took %d ms)",
          millis(all.maxNanos())).isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toNanos());
      assertThat(all.passed() + all.blocked()).isEqualTo(all.attempts());
      assertThat(run.decisions()).as("one decision per call: " + run).isEqualTo(all.attempts());
      assertThat(atPause.minus(initial).admitted()).as("Redis admitted before the pause").isPositive();

      assertThat(frozen.openSeen).as("the breaker was seen open").isTrue();
      // A stopped Redis decides nothing: what is counted as its decision after SIGSTOP was answered
      // before it, at most one per load thread (in flight, or answered and not yet counted).
      long answeredLate = wholeFreeze.admitted() + wholeFreeze.blocked();
      assertThat(answeredLate).as("counted as decided by Redis after SIGSTOP").isLessThanOrEqualTo(threads);
      assertThat(during.fallbacks(FallbackReason.BREAKER_OPEN)).as("kept away by the open breaker").isPositive();
      // With leases, the calls of one instance join its one round trip: the first that misses the
      // deadline holds every thread that waited for it (at most one per thread, which the bound
      // allows), then a round trip after failures, or a probe, holds only its own call.
      assertThat(wholeFreeze.fallbacks(FallbackReason.TIMEOUT)).as("decisions that waited out the deadline")
          .isPositive().isLessThanOrEqualTo(mostTimeouts(maxInFlight, threads, answeredLate, resumeFrom - paused));
      assertThat(frozen.maxInFlight).as("decisions in flight while frozen").isLessThanOrEqualTo(maxInFlight);
      assertThat(frozen.maxThreads).as("live threads while frozen (%d before)", threadsBefore)
          .isLessThanOrEqualTo(threadsBefore + 2);

      assertThat(after.closedSeen).isTrue();
      assertThat(end.admitted()).isGreaterThan(frozenEnd.admitted());
      assertThat(back.attempts()).isPositive();
    } finally {
      if (load != null) {
        load.close();
      }
      context.close();
    }
  }

  /** {@link ClusterFaults#afterLastAnswers} for these drills' rules of 1 s. */
  private static void afterLastAnswers(String shape) {
    ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(1));
  }

  /**
   * The most a bucketed local window of {@code count} per {@code interval} (10 buckets, no window of
   * which ever holds more than {@code count}) can admit from calls that start within {@code span}
   * and took at most {@code longestCall} each (as measured in the same run). A call may be counted
   * in a bucket newer than its start, one that a later call opened, but not newer than its end: the
   * span is stretched by the longest call.
   */
  static long localBound(int count, Duration interval, long span, long longestCall) {
    long bucket = interval.toNanos() / 10;
    long buckets = (span + longestCall) / bucket + 2;
    return count * ((buckets + 9) / 10);
  }

  /**
   * The most decisions that can wait out the deadline (fallback reason timeout) while Redis is
   * frozen for {@code frozenNanos} under {@code threads} calling threads. In a closed period of the
   * breaker, the failures counted up to the one that opens it are {@value #FAILURE_THRESHOLD}; every
   * other decision sent in that period and counted as a timeout later was, when the breaker opened,
   * either still holding one of the {@code maxInFlight} places or ended and not yet counted by its
   * caller (one per thread). An answer resets the count of failures (one more streak), and the
   * breaker closes again only on an answered probe: a frozen Redis answers only what it answered
   * before it stopped ({@code answeredLate}). An open breaker sends one probe per open period.
   */
  static long mostTimeouts(int maxInFlight, int threads, long answeredLate, long frozenNanos) {
    long probes = frozenNanos / OPEN.toNanos() + 2;
    return (FAILURE_THRESHOLD + maxInFlight + threads) * (1 + answeredLate) + probes;
  }
}
