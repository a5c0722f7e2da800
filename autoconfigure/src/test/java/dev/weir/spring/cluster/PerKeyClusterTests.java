package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Per-key cluster counters of two instances (Spring contexts, each its own Lettuce connection)
 * against one real {@code redis-server}: under threads on both, each key's admissions by Redis time
 * keep the token-bucket bound; 10^5 keys leave no Redis key behind once their buckets are full.
 */
@Timeout(120)
class PerKeyClusterTests extends WithSharedRedisServer {

  @Test
  void twoInstancesUnderThreadsKeepEveryKeysBoundByRedisTime() throws Exception {
    RedisClusterClient a = client("perkey");
    RedisClusterClient b = client("perkey");
    int keys = 20;
    double count = 5;
    Duration duration = Duration.ofMillis(500);
    int burst = 1;
    Map<String, ConcurrentLinkedQueue<Long>> stamps = new ConcurrentHashMap<>();
    List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      RedisClusterClient client = t % 2 == 0 ? a : b;
      int seed = t;
      Thread thread = new Thread(() -> {
        List<ClusterCounter> counters = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
          counters.add(client.keyCounter(new ClusterKeyLimit("api", "key=#apiKey,500ms", "k" + k, count, duration, burst)));
        }
        int i = seed;
        while (System.nanoTime() - end < 0) { // ends at the deadline: each wait below is bounded
          int k = i++ % keys;
          try {
            ClusterDecision decision = counters.get(k).acquire(1).get(5, TimeUnit.SECONDS);
            if (decision.admitted()) {
              stamps.computeIfAbsent("k" + k, x -> new ConcurrentLinkedQueue<>()).add(decision.stampMicros());
            }
          } catch (Exception e) {
            unexpected.add(e);
          }
        }
      }, "perkey-" + t);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join(30_000);
      assertThat(thread.isAlive()).isFalse();
    }
    assertThat(unexpected).isEmpty();
    assertThat(stamps).hasSize(keys);
    double emission = duration.toNanos() / 1000.0 / count;
    long total = 0;
    for (Map.Entry<String, ConcurrentLinkedQueue<Long>> key : stamps.entrySet()) {
      long[] sorted = key.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
      total += sorted.length;
      // Admissions in any span [s_i, s_j] are at most (s_j - s_i) / emission + count + burst.
      for (int i = 0; i < sorted.length; i++) {
        for (int j = i; j < sorted.length; j++) {
          assertThat(j - i + 1.0).as("%s: admissions from %d to %d", key.getKey(), sorted[i], sorted[j])
              .isLessThanOrEqualTo((sorted[j] - sorted[i]) / emission + count + burst + 1e-9);
        }
      }
      // And the limit was what refused: about 10 per second for 3 s, plus the first bucket.
      assertThat(sorted.length).as(key.getKey()).isBetween(25, 37);
    }
    System.out.printf("[perkey] %d keys, %d admissions%n", keys, total);
  }

  /**
   * 10^5 keys, each with one admission of a rule of 1 per minute: 10^5 Redis strings, every one
   * expiring within the minute (when its bucket is full again), so memory follows the keys active
   * in the last minute, not the keys ever seen. Then 1000 keys of 5 per second, which Redis drops
   * 200 ms after their admission: none is left.
   */
  @Test
  void everyKeyExpiresWhenItsBucketIsFullAgainSoNoneOutlivesIt() throws Exception {
    RedisClusterClient client = client("many");
    admitOnce(client, "slow", 100_000, 1, Duration.ofMinutes(1));
    @SuppressWarnings("unchecked")
    List<Long> ttls = (List<Long>) redis.call("EVAL", """
        local keys = redis.call('KEYS', ARGV[1])
        local least, most = -1, -1
        for _, key in ipairs(keys) do
          local ttl = redis.call('PTTL', key)
          if least < 0 or ttl < least then least = ttl end
          if ttl > most then most = ttl end
        end
        return {#keys, least, most}""", "0", "many:{api|*");
    System.out.printf("[perkey] 10^5 keys: %s (count, least and most PTTL ms)%n", ttls);
    assertThat(ttls.get(0)).isEqualTo(100_000L);
    assertThat(ttls.get(1)).as("every key expires").isPositive();
    assertThat(ttls.get(2)).isLessThanOrEqualTo(60_000L);

    redis.call("FLUSHALL");
    admitOnce(client, "fast", 1000, 5, Duration.ofSeconds(1));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while ((Long) redis.call("DBSIZE") > 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(50); // Redis' own expiry, on real time
    }
    assertThat(redis.call("DBSIZE")).as("keys left once every bucket is full again").isEqualTo(0L);
  }

  private static void admitOnce(RedisClusterClient client, String rule, int keys, double count, Duration duration)
      throws Exception {
    List<CompletableFuture<ClusterDecision>> decisions = new ArrayList<>(keys);
    for (int k = 0; k < keys; k++) {
      decisions.add(client.keyCounter(new ClusterKeyLimit("api", rule, "k" + k, count, duration, 0)).acquire(1));
    }
    CompletableFuture.allOf(decisions.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(decisions).allSatisfy(decision -> assertThat(decision.join().admitted()).isTrue());
  }

  private RedisClusterClient client(String prefix) {
    return instance(StampingApplication.class, prefix, Map.of()).getBean(RedisClusterClient.class);
  }
}
