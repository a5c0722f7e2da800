package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.MARGIN;
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
 * timing: no call throws anything but the rule's {@code FlowException}, no call takes longer than
 * the deadline and a margin for a busy machine, every decision is counted once (by the store or by
 * the fallback), the breaker keeps most calls away from a dead Redis, and Redis decides again once
 * it is back. Each drill runs for each rule shape of {@link ClusterFaults#SHAPES}, each decided by its own script.
 */
class ClusterFaultTests extends WithRedisServer {

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final Duration OPEN = Duration.ofMillis(200);


  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "exact", "two", "lease-window", "lease-exact"})
  void redisKilledMidRunFallsBackToTheLocalLimiterWithinTheDeadlineAndRecoversAfterARestart(String shape) {
    int count = 50;
    ConfigurableApplicationContext context = start(redis.port(), shape(shape, "weir.flow[0].count", Integer.toString(count)));
    Load load = null;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);

      Counts initial = Counts.of(status);
      load = new Load("kill", 8, TIMEOUT, guarded::call);
      new Sampler(status).sampleFor(Duration.ofMillis(300));
      Counts atKill = Counts.of(status);

      long killFrom = load.now();
      redis.kill();
      long killed = load.now();
      Sampler outage = new Sampler(status);
      // Answers that were on their way at the kill are counted by now; with leases, so are the calls
      // refused here on a refusal Redis answered before the kill (kept at most 100 ms).
      outage.sampleFor(Duration.ofMillis(shape.startsWith("lease") ? 250 : 100));
      Counts outageStart = Counts.of(status);
      // 1.4 s more, not a whole interval: an exact local window admits its first count at the kill
      // and the next exactly one interval later, which must fall inside the window counted below,
      // not on its edge bucket.
      outage.sampleFor(Duration.ofMillis(shape.startsWith("lease") ? 1_250 : 1_400));
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
      System.out.printf("[kill] all{%s} normal{%s} down{%s} back{%s}%n  store before kill{%s} during outage{%s}"
              + " whole run{%s}%n  kill took %d ms, restart %d ms, recovered %d ms after restart; outage sampler{%s}%n",
          all, normal, down, back, atKill.minus(initial), outageEnd.minus(outageStart), run,
          millis(killed - killFrom), millis(restarted - restartFrom), millis(recoveryNanos), outage);

      assertThat(load.unexpected()).as("what callers saw besides FlowException (%d)", load.unexpectedCount())
          .isEmpty();
      assertThat(all.maxNanos()).as("the longest call, ns").isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toNanos());
      assertThat(all.passed() + all.blocked()).isEqualTo(all.attempts());
      assertThat(run.decisions()).as("one decision per call: " + run).isEqualTo(all.attempts());
      assertThat(all.passed() - run.admitted()).as("admitted by the local limiter")
          .isBetween(0L, run.fallbacks());

      Counts beforeKill = atKill.minus(initial);
      assertThat(beforeKill.admitted()).as("Redis admitted before the kill").isPositive();
      assertThat(beforeKill.blocked()).as("Redis refused before the kill").isPositive();

      Counts during = outageEnd.minus(outageStart);
      assertThat(during.admitted() + during.blocked()).as("decided by a dead Redis").isZero();
      assertThat(during.fallbacks()).isPositive();
      assertThat(during.fallbacks(FallbackReason.BREAKER_OPEN)).as("kept away by the open breaker").isPositive();
      assertThat(outage.openSeen).as("the breaker was seen open").isTrue();
      // The local limiter decides: some calls pass, far fewer than were made, within its own count.
      assertThat(down.passed()).isPositive()
          .isLessThanOrEqualTo(localBound(count, Duration.ofSeconds(1), restartFrom - killed));
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
      load = new Load("pause", 16, TIMEOUT, guarded::call);
      Sampler normal = new Sampler(status);
      normal.sampleFor(Duration.ofMillis(300));
      Counts atPause = Counts.of(status);
      int threadsBefore = Sampler.liveThreads();

      long pauseFrom = load.now();
      redis.pause();
      long paused = load.now();
      Sampler frozen = new Sampler(status);
      frozen.sampleFor(Duration.ofMillis(shape.startsWith("lease") ? 250 : 100)); // as for a kill
      Counts frozenStart = Counts.of(status);
      frozen.sampleFor(Duration.ofMillis(shape.startsWith("lease") ? 1_750 : 1_900));
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
      System.out.printf("[pause] all{%s} frozen{%s} back{%s}%n  store before pause{%s} while frozen{%s}"
              + " whole run{%s}%n  SIGSTOP took %d ms, recovered %d ms after SIGCONT; threads before %d;"
              + " normal sampler{%s} frozen sampler{%s}%n",
          all, stopped, back, atPause.minus(initial), during, run, millis(paused - pauseFrom), millis(recoveryNanos),
          threadsBefore, normal, frozen);

      assertThat(load.unexpected()).as("what callers saw besides FlowException (%d)", load.unexpectedCount())
          .isEmpty();
      assertThat(all.maxNanos()).as("the longest call, ns").isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toNanos());
      assertThat(all.passed() + all.blocked()).isEqualTo(all.attempts());
      assertThat(run.decisions()).as("one decision per call: " + run).isEqualTo(all.attempts());
      assertThat(atPause.minus(initial).admitted()).as("Redis admitted before the pause").isPositive();

      assertThat(frozen.openSeen).as("the breaker was seen open").isTrue();
      assertThat(during.admitted() + during.blocked()).as("decided by a frozen Redis").isZero();
      assertThat(during.fallbacks(FallbackReason.BREAKER_OPEN)).as("kept away by the open breaker").isPositive();
      // Calls wait the deadline only until the breaker opens (failure-threshold timeouts, among calls
      // already waiting, at most max-in-flight of them) and as its probes.
      // With leases, the calls of one instance join its one round trip: the first that misses the
      // deadline holds every thread that waited for it (16), then a round trip after failures, or a
      // probe, holds only its own call.
      assertThat(stopped.waited()).as("calls that waited the deadline while Redis was frozen")
          .isLessThanOrEqualTo(2L * maxInFlight + (shape.startsWith("lease") ? 16 : 0));
      assertThat(stopped.attempts()).isGreaterThan(10 * stopped.waited());
      assertThat(frozen.maxInFlight).as("decisions in flight while frozen").isBetween(1, maxInFlight);
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

  /**
   * The most a bucketed local window of {@code count} per {@code interval} (10 buckets, no window of
   * which ever holds more than {@code count}) can admit from calls that start within {@code span}.
   * A call may be counted in a bucket newer than its start, one that a later call opened: the span
   * is stretched by the longest a call may take.
   */
  static long localBound(int count, Duration interval, long span) {
    long bucket = interval.toNanos() / 10;
    long buckets = (span + TIMEOUT.plus(MARGIN).toNanos()) / bucket + 2;
    return count * ((buckets + 9) / 10);
  }
}
