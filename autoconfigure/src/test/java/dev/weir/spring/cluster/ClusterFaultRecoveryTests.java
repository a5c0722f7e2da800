package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.millis;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.scriptSha;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.cluster.ClusterFaults.CallTimer;
import dev.weir.spring.cluster.ClusterFaults.Counts;
import dev.weir.spring.redis.RedisClusterClient;
import dev.weir.spring.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Redis losing what the client relies on, one call at a time: its script cache ({@code SCRIPT
 * FLUSH}), all its counts (a restart without persistence), or its very presence at startup. Each
 * test checks that Redis decides again afterwards, from the counts it then has, and that no caller
 * sees anything but the rule's {@code FlowException}.
 */
class ClusterFaultRecoveryTests extends WithRedisServer {

  /** The deadline {@link ClusterFaults#start} sets. */
  private static final Duration TIMEOUT = Duration.ofMillis(50);

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "exact", "two", "lease-window", "lease-exact"})
  void scriptFlushIsAnsweredByEvalAndLeavesTheCountAndTheDecisionsToRedis(String shape) {
    // A generous deadline and deny: a decision Redis did not make in time refuses and is counted as a fallback.
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.timeout", "2s", "weir.cluster.fallback", "deny",
        "weir.flow[0].count", "7", "weir.flow[0].interval", "10s"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      String sha = scriptSha(shape, true);
      assertThat(redis.call("SCRIPT", "EXISTS", sha)).as("a new Redis has no script").isEqualTo(List.of(0L));
      Counts initial = Counts.of(status);

      for (int i = 0; i < 5; i++) {
        guarded.call();
      }
      assertThat(redis.call("SCRIPT", "EXISTS", sha)).as("loaded by EVAL after NOSCRIPT").isEqualTo(List.of(1L));
      assertThat(redis.call("SCRIPT", "FLUSH")).isEqualTo("OK");
      assertThat(redis.call("SCRIPT", "EXISTS", sha)).isEqualTo(List.of(0L));

      guarded.call();
      assertThat(redis.call("SCRIPT", "EXISTS", sha)).as("loaded again").isEqualTo(List.of(1L));
      guarded.call();
      // 7 counted in Redis across the flush: the 8th is refused there.
      assertThatThrownBy(guarded::call).isInstanceOf(FlowException.class);

      Counts run = Counts.of(status).minus(initial);
      assertThat(run.admitted()).isEqualTo(7);
      assertThat(run.blocked()).isEqualTo(1);
      assertThat(run.fallbacks()).as("no fallback, NOSCRIPT included: " + run).isZero();
      assertThat(status.lastFailure()).isNull();
      assertThat(status.breakerState()).isEqualTo(CircuitState.CLOSED);
    } finally {
      context.close();
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "exact", "two", "lease-window", "lease-exact"})
  void aRestartedRedisWithoutPersistenceCountsFromZero(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.timeout", "2s", "weir.cluster.fallback", "deny",
        "weir.flow[0].count", "5", "weir.flow[0].interval", "10s"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);

      Counts initial = Counts.of(status);
      for (int i = 0; i < 5; i++) {
        guarded.call();
      }
      assertThatThrownBy(guarded::call).isInstanceOf(FlowException.class);
      Counts first = Counts.of(status).minus(initial);
      assertThat(first.admitted()).isEqualTo(5);
      assertThat(first.blocked()).isEqualTo(1);
      assertThat(first.fallbacks()).isZero();

      redis.kill();
      redis.restart();
      long reconnect = await("Lettuce reconnects to the new Redis", () -> answersPing(status));
      if (shape.startsWith("lease")) {
        // With leases, the refusal the old Redis answered is kept here for up to 100 ms.
        ClusterFaults.sleep(150);
      }

      Counts afterRestart = Counts.of(status);
      for (int i = 0; i < 5; i++) {
        guarded.call();
      }
      assertThatThrownBy(guarded::call).isInstanceOf(FlowException.class);
      Counts second = Counts.of(status).minus(afterRestart);
      System.out.printf("[restart] reconnected %d ms after the restart; after it {%s}%n", millis(reconnect), second);
      assertThat(second.admitted()).as("a new window in the new Redis").isEqualTo(5);
      assertThat(second.blocked()).isEqualTo(1);
      assertThat(second.fallbacks()).isZero();
    } finally {
      context.close();
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void redisDownAtStartupLetsTheApplicationStartOnTheFallbackAndIsUsedOnceItComesUp(String shape) {
    redis.kill(); // the port refuses connections
    long starting = System.nanoTime();
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.flow[0].count", "3", "weir.flow[0].interval", "10s"));
    long startup = System.nanoTime() - starting;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      RedisClusterClient client = context.getBean(RedisClusterClient.class);
      assertThat(client.connected()).isFalse();

      Counts initial = Counts.of(status);
      int[] passed = new int[1];
      long longest;
      long ownWait;
      try (CallTimer timer = new CallTimer()) {
        for (int i = 0; i < 10; i++) {
          timer.time(() -> {
            try {
              guarded.call();
              passed[0]++;
            } catch (FlowException refused) {
              // the local limiter's count is 3
            }
          });
        }
        longest = timer.longestWall();
        ownWait = timer.longestOwnWait();
      }
      Counts down = Counts.of(status).minus(initial);
      assertThat(passed[0]).as("the local limiter admits its count").isEqualTo(3);
      assertThat(down.fallbacks()).as("every call fell back: " + down).isEqualTo(10);
      assertThat(down.fallbacks(FallbackReason.ERROR)).as("not connected: an error at once, " + down).isPositive();
      assertThat(down.fallbacks(FallbackReason.TIMEOUT)).as("not connected: no wait for the deadline, " + down)
          .isZero();
      assertThat(ownWait).as("the longest a call waited by its own doing while not connected, ns")
          .isLessThan(TIMEOUT.toNanos());
      assertThat(status.lastFailure()).contains("not connected");

      long restartFrom = System.nanoTime();
      redis.restart();
      long connect = await("the client connects in the background", client::connected);
      awaitStoreAdmits(status, guarded::call);
      long decided = System.nanoTime() - restartFrom;
      System.out.printf("[startup] context started in %d ms with Redis down; longest call %d ms (own wait %d ms);"
          + " connected %d ms after Redis came up, Redis decided after %d ms%n", millis(startup), millis(longest),
          millis(ownWait), millis(connect), millis(decided));
      assertThat(status.breakerState()).isEqualTo(CircuitState.CLOSED);
    } finally {
      context.close();
    }
  }

  private static boolean answersPing(ClusterStatus status) {
    try {
      status.ping().get(250, TimeUnit.MILLISECONDS);
      return true;
    } catch (Exception notYet) {
      return false;
    }
  }

  /**
   * A decision the engine gave up on (it missed the deadline and the fallback decided) must not be
   * applied later to a Redis that was restarted in the meantime: that Redis would start its new
   * window with calls that were never admitted by it, here refused by {@code deny}.
   */
  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void decisionsGivenUpOnWhileRedisWasDownAreNotCountedByTheRestartedRedis(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.timeout", "100ms", "weir.cluster.fallback", "deny",
        "weir.cluster.open-duration", "200ms",
        "weir.flow[0].count", "5", "weir.flow[0].interval", "10s"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      RedisClusterClient client = context.getBean(RedisClusterClient.class);
      ClusterLimit limit = new ClusterLimit(ClusterFaultApplication.RESOURCE, "all", 5, Duration.ofSeconds(10));
      String key = client.leasing() ? client.leaseKey(limit) : client.key(limit); // the key the rule's script counts on

      redis.kill();
      Counts beforeOutage = Counts.of(status);
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(guarded::call).isInstanceOf(FlowException.class); // deny
      }
      Counts outage = Counts.of(status).minus(beforeOutage);
      assertThat(outage.fallbacks(FallbackReason.TIMEOUT) + outage.fallbacks(FallbackReason.ERROR)).isEqualTo(3);
      assertThat(status.breakerState()).isEqualTo(CircuitState.OPEN);

      redis.restart();
      await("Lettuce reconnects to the new Redis", () -> answersPing(status));
      await("the commands of the outage are settled", () -> status.inFlight() == 0);
      assertThat(redis.call("HGETALL", key)).as("counted in the new Redis before any call since its restart")
          .isEqualTo(List.of());

      ClusterFaults.sleep(250); // past the breaker's open duration: the next call probes
      Counts afterRestart = Counts.of(status);
      for (int i = 0; i < 5; i++) {
        guarded.call();
      }
      assertThatThrownBy(guarded::call).isInstanceOf(FlowException.class);
      Counts second = Counts.of(status).minus(afterRestart);
      assertThat(second.admitted()).isEqualTo(5);
      assertThat(second.fallbacks()).isZero();
    } finally {
      context.close();
    }
  }
}
