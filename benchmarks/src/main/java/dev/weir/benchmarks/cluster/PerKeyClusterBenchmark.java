package dev.weir.benchmarks.cluster;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.spring.redis.RedisClusterClient;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Per-key decisions from one JVM against a Redis on loopback ({@code benchmarks/cluster.sh} starts
 * it and passes {@code -p port=...}): each call picks one of {@link #keys} keys at random and asks
 * for one permit of a per-key limit of 1,000,000 a minute (never reached, so every decision is a
 * Redis decision that admits). {@link #weirKey}: Weir's Redis client, one {@code gcra.lua} call per
 * decision on Spring Data Redis' shared Lettuce connection; {@link #bucket4jKey}: Bucket4j's
 * Lettuce-based proxy manager (compare-and-swap) with the same limit on its own Lettuce connection.
 *
 * <p>The engine does not route param-flow rules to Redis yet, so this measures the client, as
 * {@link ClusterDecisionBenchmark#clientOnly} does for flow rules.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PerKeyClusterBenchmark {

  static final double COUNT = 1_000_000;
  static final Duration DURATION = Duration.ofMinutes(1);

  @Param("6379")
  public int port;

  @Param("10000")
  public int keys;

  private LettuceConnectionFactory connectionFactory;
  private RedisClusterClient client;
  private ClusterCounter[] counters;
  private RedisClient bucket4jClient;
  private StatefulRedisConnection<byte[], byte[]> bucket4jConnection;
  private BucketProxy[] buckets;

  @Setup(Level.Trial)
  public void start() {
    connectionFactory = ClusterBench.connectionFactory(port);
    client = ClusterBench.connectedClient(connectionFactory);
    counters = new ClusterCounter[keys];
    for (int k = 0; k < keys; k++) {
      counters[k] = client.keyCounter(new ClusterKeyLimit("api", "param=0,60000ms", "k" + k, COUNT, DURATION, 0));
    }

    bucket4jClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
    bucket4jConnection = bucket4jClient.connect(ByteArrayCodec.INSTANCE);
    ProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(1)))
        .build();
    BucketConfiguration configuration = BucketConfiguration.builder()
        .addLimit(limit -> limit.capacity((long) COUNT).refillGreedy((long) COUNT, DURATION))
        .build();
    buckets = new BucketProxy[keys];
    for (int k = 0; k < keys; k++) {
      buckets[k] = proxies.getProxy(("bucket4j:k" + k).getBytes(StandardCharsets.UTF_8), () -> configuration);
    }
  }

  @TearDown(Level.Trial)
  public void stop() {
    client.close();
    connectionFactory.destroy();
    bucket4jConnection.close();
    bucket4jClient.shutdown();
  }

  @Benchmark
  public boolean weirKey() throws Exception {
    boolean admitted = counters[ThreadLocalRandom.current().nextInt(keys)].acquire(1).get(1, TimeUnit.SECONDS)
        .admitted();
    if (!admitted) {
      throw new IllegalStateException("refused: the limit is not meant to be reached");
    }
    return admitted;
  }

  @Benchmark
  public boolean bucket4jKey() {
    boolean admitted = buckets[ThreadLocalRandom.current().nextInt(keys)].tryConsume(1);
    if (!admitted) {
      throw new IllegalStateException("refused: the limit is not meant to be reached");
    }
    return admitted;
  }
}
