package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The fault drills for the per-key script ({@code gcra.lua}), on the Redis client (the engine does not
 * route param-flow rules to it yet): {@code SCRIPT FLUSH}, a restart without persistence, a kill,
 * and {@code SIGSTOP} with decisions given up on while it is frozen.
 */
@Timeout(120)
class ClusterFaultKeyTests extends WithRedisServer {

  private static final ClusterKeyLimit LIMIT =
      new ClusterKeyLimit("api", "param=0,60000ms", "customer-7", 3, Duration.ofMinutes(1), 0);

  @Test
  void scriptFlushIsAnsweredByEvalAndTheKeysStateIsKept() throws Exception {
    try (ConfigurableApplicationContext context = instance()) {
      ClusterCounter counter = client(context).keyCounter(LIMIT);
      assertThat(decide(counter).admitted()).isTrue();
      assertThat(decide(counter).admitted()).isTrue();
      assertThat(redis.call("SCRIPT", "FLUSH")).isEqualTo("OK");
      assertThat(decide(counter).admitted()).isTrue();
      assertThat(decide(counter).admitted()).as("3 counted across the flush").isFalse();
    }
  }

  @Test
  void aRestartedRedisWithoutPersistenceCountsFromAFullBucket() throws Exception {
    try (ConfigurableApplicationContext context = instance()) {
      ClusterCounter counter = client(context).keyCounter(LIMIT);
      for (int i = 0; i < 3; i++) {
        assertThat(decide(counter).admitted()).isTrue();
      }
      assertThat(decide(counter).admitted()).isFalse();
      redis.kill();
      // A decision sent before Lettuce noticed the kill waits in its buffer, to be sent again after
      // a reconnect; the engine gives up on it at its deadline (cancel), so it never is. Once the
      // client saw the connection drop, a decision fails at once.
      await("a decision fails at once", () -> {
        CompletableFuture<ClusterDecision> down = counter.acquire(1);
        try {
          down.get(200, TimeUnit.MILLISECONDS);
          return false;
        } catch (ExecutionException failedAtOnce) {
          return true;
        } catch (TimeoutException | InterruptedException waiting) {
          down.cancel(false);
          return false;
        }
      });
      redis.restart();
      await("Lettuce reconnects", () -> {
        CompletableFuture<ClusterDecision> first = counter.acquire(1);
        try {
          return first.get(1, TimeUnit.SECONDS).admitted();
        } catch (Exception notYet) {
          first.cancel(false); // given up on, as the engine would
          return false;
        }
      });
      assertThat(decide(counter).admitted()).isTrue();
      assertThat(decide(counter).admitted()).isTrue();
      assertThat(decide(counter).admitted()).as("a full bucket of 3 in the new Redis, none taken by a"
          + " decision given up on while it was down").isFalse();
    }
  }

  /**
   * SIGSTOP: the connection stays open, so decisions are written to the frozen Redis and wait; the
   * engine gives up on them at its deadline (cancel). Redis has received them and runs them when
   * it resumes (documented: a command Redis received still runs there), which can only count
   * permits, never admit more than the key's bucket holds.
   */
  @Test
  void decisionsGivenUpOnWhileRedisIsFrozenCostNoWaitAndTheBucketStillBoundsTheKey() throws Exception {
    try (ConfigurableApplicationContext context = instance()) {
      ClusterCounter counter = client(context).keyCounter(LIMIT);
      assertThat(decide(counter).admitted()).isTrue(); // loads the script, opens the key
      redis.pause();
      List<CompletableFuture<ClusterDecision>> frozen = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        frozen.add(counter.acquire(1));
      }
      Thread.sleep(100); // real time: Lettuce writes them to the frozen server's socket
      for (CompletableFuture<ClusterDecision> decision : frozen) {
        assertThat(decision).as("no answer from a frozen Redis").isNotDone();
        assertThat(decision.cancel(false)).isTrue(); // what the engine does at its deadline
      }
      redis.resume();
      int admitted = 0;
      for (int i = 0; i < 5; i++) {
        admitted += decide(counter).admitted() ? 1 : 0;
      }
      assertThat(admitted).as("of the 2 permits left, minus what the cancelled decisions took").isBetween(0, 2);
      assertThat(frozen).allSatisfy(decision -> assertThat(decision).isCancelled());
    }
  }

  private static ClusterDecision decide(ClusterCounter counter) throws Exception {
    return counter.acquire(1).get(5, TimeUnit.SECONDS);
  }

  private ConfigurableApplicationContext instance() {
    ConfigurableApplicationContext context = new SpringApplicationBuilder(StampingApplication.class)
        .web(WebApplicationType.NONE)
        .properties(Map.of("spring.main.banner-mode", "off", "spring.data.redis.host", redis.host(),
            "spring.data.redis.port", Integer.toString(redis.port()), "weir.cluster.enabled", "true",
            "weir.cluster.key-prefix", "keyfaults"))
        .run();
    await("the Redis client connects", client(context)::connected);
    return context;
  }

  private static RedisClusterClient client(ConfigurableApplicationContext context) {
    return context.getBean(RedisClusterClient.class);
  }
}
