package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.MARGIN;
import static dev.weir.spring.cluster.ClusterFaults.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.ClusterStatus;
import dev.weir.Weir;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.cluster.ClusterFaults.CallTimer;
import dev.weir.spring.cluster.ClusterFaults.Counts;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The fault drills of a per-key cluster rule ({@code gcra.lua}, or with leases {@code lease-gcra.lua}
 * on the same state: one lease per key), through the engine, one key of a param-flow rule of 3 per
 * minute with the {@code deny} fallback, so that a call Redis did not decide is refused and counted
 * as a fallback: {@code SCRIPT FLUSH}, a restart without persistence, and {@code SIGSTOP} with
 * decisions given up on while it is frozen. Each drill runs per call ({@code key}) and with leases
 * ({@code lease-key}); a block of a key of 3 is one permit (at most {@code floor(count) / 16}, at
 * least 1), valid 600 ms (a hundredth of the minute).
 */
@Timeout(120)
class ClusterFaultKeyTests extends WithRedisServer {

  private static final String KEY = "customer-7";

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"key", "lease-key"})
  void scriptFlushIsAnsweredByEvalAndTheKeysStateIsKept(String shape) {
    try (ConfigurableApplicationContext context = instance(shape, Duration.ofSeconds(2))) {
      KeyedQuotesApplication.Quotes quotes = context.getBean(KeyedQuotesApplication.Quotes.class);
      ClusterStatus status = status(context);
      Counts before = Counts.of(status);
      assertThat(admitted(quotes)).isTrue();
      assertThat(admitted(quotes)).isTrue();
      assertThat(redis.call("SCRIPT", "FLUSH")).isEqualTo("OK");
      assertThat(admitted(quotes)).isTrue();
      assertThat(admitted(quotes)).as("3 counted across the flush").isFalse();
      Counts run = Counts.of(status).minus(before);
      assertThat(run.admitted()).as("decided by Redis: " + run).isEqualTo(3);
      assertThat(run.blocked()).isEqualTo(1);
      assertThat(run.fallbacks()).as("no fallback, NOSCRIPT included: " + run).isZero();
      assertThat(status.leaseRequests()).as("cold: decided per call").isZero();
      if (shape.startsWith("lease")) {
        // The refusal turned the key hot: the next call asks by lease (the lease script, not yet
        // loaded: NOSCRIPT, then EVAL), and is refused. The script flushed again, and the refusal
        // kept here over (a lease's validity, 600 ms), the next lease request is answered by EVAL
        // too, on the key's state that the flush kept.
        assertThat(admitted(quotes)).isFalse();
        assertThat(status.leaseRequests()).as("the key leased").isEqualTo(1);
        assertThat(redis.call("SCRIPT", "FLUSH")).isEqualTo("OK");
        await("the refusal kept here ends, and a lease request refuses", () -> {
          assertThat(admitted(quotes)).isFalse();
          return status.leaseRequests() == 2;
        });
        assertThat(Counts.of(status).minus(before).fallbacks()).as("no fallback, NOSCRIPT included").isZero();
      }
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"key", "lease-key"})
  void aRestartedRedisWithoutPersistenceCountsFromAFullBucket(String shape) {
    try (ConfigurableApplicationContext context = instance(shape, Duration.ofSeconds(2))) {
      KeyedQuotesApplication.Quotes quotes = context.getBean(KeyedQuotesApplication.Quotes.class);
      ClusterStatus status = status(context);
      Counts before = Counts.of(status);
      for (int i = 0; i < 3; i++) {
        assertThat(admitted(quotes)).isTrue();
      }
      assertThat(admitted(quotes)).isFalse();
      Counts full = Counts.of(status).minus(before);
      assertThat(full.admitted()).as("decided by Redis: " + full).isEqualTo(3);
      assertThat(full.blocked()).isEqualTo(1);
      assertThat(full.fallbacks()).isZero();

      redis.kill();
      // A decision sent before Lettuce noticed the kill waits in its buffer, to be sent again after a
      // reconnect; the engine gives up on it at its deadline (cancel), so it never is. Once the client
      // saw the connection drop, a decision fails at once and deny refuses it. With leases, Redis'
      // refusal of the key is kept here for up to a lease's validity (600 ms) first: a refusal, not
      // the fallback.
      await("a decision falls back for an error", () -> {
        long errors = status.fallbacks(FallbackReason.ERROR);
        assertThat(admitted(quotes)).as("a full bucket, or deny").isFalse();
        return status.fallbacks(FallbackReason.ERROR) > errors;
      });
      redis.restart();
      Counts restarted = Counts.of(status);
      await("Redis admits again", () -> admitted(quotes)); // deny refuses until then
      assertThat(admitted(quotes)).isTrue();
      assertThat(admitted(quotes)).isTrue();
      assertThat(admitted(quotes)).as("a full bucket of 3 in the new Redis, none taken by a decision given up on"
          + " while it was down").isFalse();
      Counts after = Counts.of(status).minus(restarted);
      System.out.printf("[key-restart %s] before the kill {%s}; after the restart {%s}%n", shape, full, after);
      assertThat(after.admitted()).as("admitted by the new Redis: " + after).isEqualTo(3);
      assertThat(after.blocked()).as("refused by the new Redis: " + after).isEqualTo(1);
    }
  }

  /**
   * SIGSTOP: the connection stays open, so decisions are written to the frozen Redis and wait; the
   * engine gives up on them at its deadline (cancel) and deny refuses them. Redis has received them
   * and runs them when it resumes (documented: a command Redis received still runs there), which
   * can only count permits, never admit more than the key's bucket holds. With leases, a lease
   * granted that late is given back, or stays counted until it ends: on the safe side too.
   */
  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"key", "lease-key"})
  void decisionsGivenUpOnWhileRedisIsFrozenCostNoWaitAndTheBucketStillBoundsTheKey(String shape) {
    Duration timeout = Duration.ofMillis(500);
    try (ConfigurableApplicationContext context = instance(shape, timeout)) {
      KeyedQuotesApplication.Quotes quotes = context.getBean(KeyedQuotesApplication.Quotes.class);
      ClusterStatus status = status(context);
      // Loads the script, opens the key; a first decision of a fresh JVM may miss the deadline, and
      // may still take a permit in Redis, which leaves fewer for the end, never more.
      await("Redis admits a call", () -> admitted(quotes));
      // With leases, that call's lease was of its one permit (a key of 3): the next call asks Redis.
      redis.pause();
      Counts before = Counts.of(status);
      long ownWait;
      try (CallTimer timer = new CallTimer()) {
        for (int i = 0; i < 5; i++) {
          timer.time(() -> assertThat(admitted(quotes)).as("deny while Redis is frozen").isFalse());
        }
        ownWait = timer.longestOwnWait();
      }
      Counts frozen = Counts.of(status).minus(before);
      assertThat(frozen.fallbacks()).as("every call fell back: " + frozen).isEqualTo(5);
      assertThat(frozen.fallbacks(FallbackReason.TIMEOUT)).as("given up on at the deadline: " + frozen).isPositive();
      assertThat(ownWait).as("the longest a call waited by its own doing, ns").isLessThanOrEqualTo(
          timeout.plus(MARGIN).toNanos());
      redis.resume();

      // Until Redis refuses the key: what it admits meanwhile is what the bucket held, less what the
      // decisions given up on took when Redis ran them.
      Counts resumed = Counts.of(status);
      await("Redis refuses the key", () -> {
        admitted(quotes);
        return status.blocked() > resumed.blocked();
      });
      Counts after = Counts.of(status).minus(resumed);
      System.out.printf("[key-frozen %s] frozen {%s} own wait %d ms; after SIGCONT {%s}%n", shape, frozen,
          ClusterFaults.millis(ownWait), after);
      assertThat(after.admitted()).as("of the 2 permits left, minus what the cancelled decisions took: " + after)
          .isBetween(0L, 2L);
    }
  }

  /** One call for {@link #KEY}; whether it passed. */
  private static boolean admitted(KeyedQuotesApplication.Quotes quotes) {
    try {
      quotes.quote(KEY);
      return true;
    } catch (RuntimeException e) {
      if (e instanceof BlockException) {
        return false;
      }
      throw e;
    }
  }

  private static ClusterStatus status(ConfigurableApplicationContext context) {
    ClusterStatus status = context.getBean(Weir.class).cluster();
    assertThat(status).as("cluster mode is on").isNotNull();
    return status;
  }

  /**
   * An instance with one per-key cluster rule on {@code keyed} of 3 per minute, decisions waiting at
   * most {@code timeout}, the deny fallback, a breaker of 3 failures and 200 ms; with leases for the
   * {@code lease-*} shapes. Returns once its Redis client connected.
   */
  private ConfigurableApplicationContext instance(String shape, Duration timeout) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.main.banner-mode", "off");
    properties.put("spring.data.redis.host", redis.host());
    properties.put("spring.data.redis.port", Integer.toString(redis.port()));
    properties.put("weir.cluster.enabled", "true");
    properties.put("weir.cluster.key-prefix", "keyfaults");
    properties.put("weir.cluster.timeout", timeout.toMillis() + "ms");
    properties.put("weir.cluster.fallback", "deny");
    properties.put("weir.cluster.failure-threshold", "3");
    properties.put("weir.cluster.open-duration", "200ms");
    properties.put("weir.cluster.lease", Boolean.toString(shape.startsWith("lease")));
    properties.put("weir.param-flow[0].resource", "keyed");
    properties.put("weir.param-flow[0].param-index", "0");
    properties.put("weir.param-flow[0].count", "3");
    properties.put("weir.param-flow[0].duration", "1m");
    properties.put("weir.param-flow[0].cluster-mode", "true");
    ConfigurableApplicationContext context = new SpringApplicationBuilder(KeyedQuotesApplication.class)
        .web(WebApplicationType.NONE)
        .properties(properties)
        .run();
    await("the Redis client connects", context.getBean(RedisClusterClient.class)::connected);
    return context;
  }
}
