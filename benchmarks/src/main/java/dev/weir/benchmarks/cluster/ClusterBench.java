package dev.weir.benchmarks.cluster;

import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One engine in cluster mode on a Redis at 127.0.0.1:port, as an application would have it: Spring
 * Data Redis' Lettuce connection factory, Weir's Redis client, one cluster-mode rule whose count no
 * run reaches (every decision is a Redis decision that admits), and a deadline long enough that a
 * slow answer is measured rather than replaced by the fallback. Fallbacks are counted and a run
 * that had any is refused by its caller.
 */
final class ClusterBench implements AutoCloseable {

  static final String RESOURCE = "bench";

  final LettuceConnectionFactory connectionFactory;
  final RedisClusterClient client;
  final Weir weir;

  ClusterBench(int port, boolean clustered) {
    connectionFactory = connectionFactory(port);
    client = connectedClient(connectionFactory);
    FlowRule rule = FlowRule.builder(RESOURCE).count(2_000_000_000d).clusterMode(clustered).build();
    weir = Weir.builder()
        .cluster(client, new ClusterOptions(Duration.ofSeconds(1), ClusterFallback.DENY, 5, Duration.ofSeconds(1), 1024))
        .rules(RuleSet.of(rule)).build();
  }

  /** Spring Data Redis' Lettuce connection factory for the Redis at 127.0.0.1:{@code port}, started. */
  static LettuceConnectionFactory connectionFactory(int port) {
    LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
    factory.afterPropertiesSet();
    factory.start();
    return factory;
  }

  /** Weir's Redis client on {@code factory}, once connected; fails after 10 s without Redis. */
  static RedisClusterClient connectedClient(LettuceConnectionFactory factory) {
    RedisClusterClient client = new RedisClusterClient(factory, "bench");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!client.connected()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no Redis at " + factory.getHostName() + ":" + factory.getPort());
      }
      Thread.onSpinWait();
    }
    return client;
  }

  /** Fails when any decision of this run was made by the fallback rather than by Redis. */
  void requireNoFallback() {
    long fallbacks = weir.cluster().fallbacks();
    if (fallbacks > 0) {
      throw new IllegalStateException(fallbacks + " decisions fell back (last failure: " + weir.cluster().lastFailure()
          + "): this run did not measure Redis decisions only");
    }
  }

  @Override
  public void close() {
    weir.close();
    client.close();
    connectionFactory.destroy();
  }
}
