package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.MARGIN;
import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.millis;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.cluster.ClusterFaults.CallTimer;
import dev.weir.spring.cluster.ClusterFaults.Counts;
import dev.weir.spring.cluster.ClusterFaults.Load;
import dev.weir.spring.cluster.ClusterFaults.Window;
import dev.weir.spring.redis.RedisClusterClient;
import dev.weir.spring.test.RedisServer;
import dev.weir.spring.test.WaitClock;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Faults of the connection rather than of the process: Redis closing the client's connection,
 * Redis answering with errors, Redis frozen while the application starts or stops. Each drill runs
 * per call ({@code window}) and with leases ({@code lease-window}, see {@link ClusterFaults#shape}).
 */
class ClusterFaultConnectionTests extends WithRedisServer {

  private static final Duration TIMEOUT = Duration.ofMillis(50);


  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void aConnectionClosedByRedisIsReopenedAndRedisDecidesAgain(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape));
    Load load = null;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);

      Counts initial = Counts.of(status);
      load = new Load("client-kill", 4, TIMEOUT, guarded::call);
      ClusterFaults.sleep(200); // load on a healthy Redis
      Object killed = redis.call("CLIENT", "KILL", "TYPE", "normal"); // every client but this call's own
      // With leases, the refusal Redis answered last before the kill goes on refusing calls here (and
      // counting them as its refusals) for up to 100 ms: past that, what is counted as decided by
      // Redis was answered by it after the kill.
      ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(1));
      Counts atKill = Counts.of(status);
      long recovery = await("Redis decides again after its clients were killed",
          () -> status.admitted() + status.blocked() > atKill.admitted() + atKill.blocked() + 50);
      ClusterFaults.sleep(100);
      load.stop();
      await("the decisions in flight settle", () -> status.inFlight() == 0);
      Counts run = Counts.of(status).minus(initial);
      Window all = load.all();
      long ownWait = load.longestOwnWait();
      System.out.printf("[client-kill] killed %s connections, Redis decided again within %d ms; all{%s} {%s};"
          + " longest own wait %d ms%n", killed, millis(recovery), all, run, millis(ownWait));

      assertThat((Long) killed).as("connections Redis closed").isPositive();
      assertThat(load.unexpected()).as("what callers saw besides FlowException").isEmpty();
      assertThat(ownWait).as("the longest a call waited by its own doing, ns (the longest call took %d ms)",
          millis(all.maxNanos())).isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toNanos());
      assertThat(run.decisions()).as("one decision per call").isEqualTo(all.attempts());
    } finally {
      if (load != null) {
        load.close();
      }
      context.close();
    }
  }

  /**
   * With a deadline far beyond any answer of a live Redis (2 s), a decision that ended in a
   * timeout waited for an error that had come: so none may, and the breaker opens on errors alone.
   */
  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void errorRepliesFallBackWithReasonErrorOpenTheBreakerAndStopOnceTheKeyIsUsableAgain(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape, "weir.cluster.timeout", "2s"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);
      RedisClusterClient client = context.getBean(RedisClusterClient.class);
      ClusterLimit limit = new ClusterLimit(ClusterFaultApplication.RESOURCE, "all", 20, Duration.ofSeconds(1));
      String key = client.leasing() ? client.leaseKey(limit) : client.key(limit); // the key the rule's script counts on
      assertThat(redis.call("DEL", key)).isEqualTo(1L);
      assertThat(redis.call("SET", key, "not a hash")).isEqualTo("OK"); // the script's HGETALL fails: WRONGTYPE

      Counts before = Counts.of(status);
      for (int i = 0; i < 50; i++) {
        try {
          guarded.call();
        } catch (FlowException refused) {
          // the local limiter's count
        }
      }
      Counts errors = Counts.of(status).minus(before);
      System.out.printf("[wrongtype] {%s} last failure: %s%n", errors, status.lastFailure());
      assertThat(errors.fallbacks(FallbackReason.TIMEOUT)).as("an error answer is not a wait: " + errors).isZero();
      assertThat(errors.fallbacks(FallbackReason.ERROR)).as("errors before the breaker opened: " + errors)
          .isGreaterThanOrEqualTo(3);
      assertThat(errors.fallbacks()).isEqualTo(50);
      assertThat(status.breakerState()).isEqualTo(CircuitState.OPEN);
      assertThat(status.lastFailure()).contains("WRONGTYPE");

      redis.call("DEL", key);
      awaitStoreAdmits(status, guarded::call);
      assertThat(redis.call("TYPE", key)).isEqualTo("hash");
    } finally {
      context.close();
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void redisFrozenAtStartupDelaysNeitherTheStartNorAnyCallAndIsUsedOnceItAnswers(String shape) {
    redis.pause(); // the kernel accepts the connection, nothing answers the handshake
    long starting = System.nanoTime();
    ConfigurableApplicationContext context = start(redis.port(), shape(shape));
    long startup = System.nanoTime() - starting;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      RedisClusterClient client = context.getBean(RedisClusterClient.class);

      Counts before = Counts.of(status);
      long longest;
      long ownWait;
      try (CallTimer timer = new CallTimer()) {
        for (int i = 0; i < 20; i++) {
          timer.time(() -> {
            try {
              guarded.call();
            } catch (FlowException refused) {
              // the local limiter's count
            }
          });
        }
        longest = timer.longestWall();
        ownWait = timer.longestOwnWait();
      }
      Counts frozen = Counts.of(status).minus(before);
      assertThat(client.connected()).isFalse();
      assertThat(frozen.fallbacks()).as("every call fell back: " + frozen).isEqualTo(20);
      // Not connected: a decision fails at once, without waiting for the deadline or for the connect.
      assertThat(frozen.fallbacks(FallbackReason.TIMEOUT)).as("decisions that waited out the deadline").isZero();
      assertThat(ownWait).as("the longest a call waited by its own doing, ns").isLessThan(TIMEOUT.toNanos());

      redis.resume();
      long connect = await("the client connects once Redis answers", client::connected);
      awaitStoreAdmits(status, guarded::call);
      System.out.printf("[frozen-startup] context started in %d ms, longest call %d ms (own wait %d ms) {%s};"
          + " connected %d ms after SIGCONT%n", millis(startup), millis(longest), millis(ownWait), frozen,
          millis(connect));
    } finally {
      context.close();
    }
  }

  /**
   * Closing does not wait for the frozen Redis to answer the decisions it holds: Redis stays frozen
   * until the test ends, so a close that waited for those answers would return only when the
   * client's own command timeout (set here to 20 s) gave up on them; the close must take less.
   */
  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void theApplicationClosesPromptlyWhileRedisIsFrozen(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape, "spring.data.redis.timeout", "20s"));
    ClusterFaultApplication.Guarded guarded = guarded(context);
    ClusterStatus status = status(context);
    awaitConnected(context);
    awaitStoreAdmits(status, guarded::call);
    redis.pause();
    for (int i = 0; i < 10; i++) {
      try {
        guarded.call();
      } catch (FlowException refused) {
        // the local limiter's count
      }
    }
    // Their commands stay in Lettuce's stack, sent to the frozen Redis, cancelled and unanswered.
    assertThat(status.fallbacks(FallbackReason.TIMEOUT)).as("decisions that timed out on the frozen Redis")
        .isPositive();
    long closed;
    long ownWait;
    try (WaitClock clock = WaitClock.ofCurrentThread()) {
      WaitClock.Reading before = clock.read();
      context.close();
      WaitClock.Reading after = clock.read();
      closed = after.wall() - before.wall();
      ownWait = WaitClock.ownWait(before, after);
    }
    System.out.printf("[frozen-close] closed in %d ms (own wait %d ms) with %d decisions in flight%n", millis(closed),
        millis(ownWait), status.inFlight());
    // The close's own wait, not its wall-clock time: a busy machine lengthens the latter only.
    assertThat(ownWait).as("the closing thread waited by its own doing, ns").isLessThan(Duration.ofSeconds(20).toNanos());
  }
}
