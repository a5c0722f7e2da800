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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Per-key cluster counters of two instances (Spring contexts, each its own Lettuce connection)
 * against one real {@code redis-server}: under threads on both, each key's admissions by Redis time
 * keep the token-bucket bound; 10^5 keys leave no Redis key behind once their buckets are full.
 */
@Timeout(120)
class PerKeyClusterTests extends WithSharedRedisServer {

  /**
   * Both bounds of the token bucket, by Redis time: no span {@code [a, b]} of a key holds more than
   * {@code (b - a) / emission + capacity} admissions, and every refusal had the bucket empty, i.e.
   * some span ending at the refusal held at least {@code (r - a) / emission + capacity - 1} (the
   * script's rounding of TAT up to the microsecond refuses a little sooner, never later). The run
   * lasts 3 s and until every key was refused once, so that each key's limit was what refused.
   */
  @Test
  void twoInstancesUnderThreadsKeepEveryKeysBoundByRedisTime() throws Exception {
    RedisClusterClient a = client("perkey");
    RedisClusterClient b = client("perkey");
    int keys = 20;
    double count = 5;
    Duration duration = Duration.ofMillis(500);
    int burst = 1;
    Map<String, ConcurrentLinkedQueue<Long>> stamps = new ConcurrentHashMap<>();
    Map<String, ConcurrentLinkedQueue<Long>> refusals = new ConcurrentHashMap<>();
    List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stop = new AtomicBoolean();
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
        while (!stop.get()) { // ends when told: each wait below is bounded
          int k = i++ % keys;
          try {
            ClusterDecision decision = counters.get(k).acquire(1).get(5, TimeUnit.SECONDS);
            (decision.admitted() ? stamps : refusals).computeIfAbsent("k" + k, x -> new ConcurrentLinkedQueue<>())
                .add(decision.stampMicros());
          } catch (Exception e) {
            unexpected.add(e);
          }
        }
      }, "perkey-" + t);
      thread.start();
      threads.add(thread);
    }
    Thread.sleep(3_000);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (refusals.size() < keys && System.nanoTime() - deadline < 0) {
      Thread.sleep(50);
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(30_000);
      assertThat(thread.isAlive()).isFalse();
    }
    assertThat(unexpected).isEmpty();
    assertThat(stamps).hasSize(keys);
    assertThat(refusals).as("keys refused by their limit").hasSize(keys);
    double emission = duration.toNanos() / 1000.0 / count;
    double capacity = count + burst;
    long total = 0;
    for (Map.Entry<String, ConcurrentLinkedQueue<Long>> key : stamps.entrySet()) {
      long[] sorted = key.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
      total += sorted.length;
      // Admissions in any span [s_i, s_j] are at most (s_j - s_i) / emission + count + burst.
      double mostOver = Double.NEGATIVE_INFINITY;
      for (int i = 0; i < sorted.length; i++) {
        for (int j = i; j < sorted.length; j++) {
          mostOver = Math.max(mostOver, (j - i + 1.0) - (sorted[j] - sorted[i]) / emission);
        }
      }
      assertThat(mostOver).as("%s: most admissions in a span beyond what it refills", key.getKey())
          .isLessThanOrEqualTo(capacity + 1e-9);
      // Each refusal at r: the admissions in some [s_i, r) reach (r - s_i) / emission + capacity - 1.
      for (long refused : refusals.get(key.getKey())) {
        int upTo = 0; // the admissions stamped at or before the refusal: sorted[0 .. upTo)
        while (upTo < sorted.length && sorted[upTo] <= refused) {
          upTo++;
        }
        double fullest = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < upTo; i++) {
          fullest = Math.max(fullest, (upTo - i) - (refused - sorted[i]) / emission);
        }
        assertThat(fullest).as("%s: the bucket when refused at %d", key.getKey(), refused)
            .isGreaterThanOrEqualTo(capacity - 1 - 0.01);
      }
    }
    System.out.printf("[perkey] %d keys, %d admissions, %d refusals%n", keys, total,
        refusals.values().stream().mapToInt(ConcurrentLinkedQueue::size).sum());
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
