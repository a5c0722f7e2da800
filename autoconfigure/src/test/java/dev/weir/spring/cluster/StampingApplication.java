package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterLimit;
import dev.weir.spring.redis.RedisClusterClient;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An instance whose {@code stamped} resource is guarded by cluster-mode rules, counted by the real
 * {@link RedisClusterClient}, with every Redis admission's time stamp recorded on its way back to
 * the engine, so that a test can check the spans of the whole fleet by Redis' own clock.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class StampingApplication {

  static final String RESOURCE = "stamped";

  @Bean
  Guarded guarded() {
    return new Guarded();
  }

  @Bean
  Stamps stamps() {
    return new Stamps();
  }

  @Bean(destroyMethod = "close")
  RedisClusterClient redisClusterClient(LettuceConnectionFactory factory,
      org.springframework.core.env.Environment environment) {
    return new RedisClusterClient(factory, environment.getProperty("weir.cluster.key-prefix", "weir"));
  }

  /** The engine's client: the Redis client, its admissions' stamps recorded (one per permit). */
  @Bean
  @Primary
  ClusterClient stampingClient(RedisClusterClient redis, Stamps stamps) {
    return new ClusterClient() {
      @Override
      public ClusterCounter counter(ClusterLimit limit) {
        return stamped(redis.counter(limit));
      }

      private ClusterCounter stamped(ClusterCounter counter) {
        return permits -> {
          CompletableFuture<dev.weir.cluster.ClusterDecision> decision = counter.acquire(permits);
          decision.thenAccept(answer -> {
            if (answer.admitted()) {
              for (int i = 0; i < permits; i++) {
                stamps.admitted.add(answer.stampMicros());
              }
            } else {
              stamps.refused.add(answer.stampMicros());
            }
          });
          return decision; // the engine cancels this one at its deadline, as it would the client's own
        };
      }

      @Override
      public ClusterCounter counterOfAll(java.util.List<ClusterLimit> limits) {
        ClusterCounter counter = redis.counterOfAll(limits);
        return counter == null ? null : stamped(counter);
      }

      @Override
      public CompletableFuture<?> ping() {
        return redis.ping();
      }

      @Override
      public String description() {
        return redis.description();
      }
    };
  }

  /** The Redis time stamps (us) of every admission and of every refusal Redis made for this instance. */
  static final class Stamps {
    final Queue<Long> admitted = new ConcurrentLinkedQueue<>();
    final Queue<Long> refused = new ConcurrentLinkedQueue<>();
  }

  static class Guarded {
    @RateLimited(RESOURCE)
    public String call() {
      return "ok";
    }
  }
}
