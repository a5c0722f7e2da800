package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.LeaseRequest;
import dev.weir.spring.redis.RedisClusterClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An application whose {@code faults} resource has a cluster-mode rule; the fault tests break its Redis.
 * With {@code faults.ledger: true}, the engine's cluster client is the real {@link RedisClusterClient}
 * with every answer it got from Redis recorded on its way back ({@link Ledger}), so that a test can
 * bound what Redis counted by what it answered.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ClusterFaultApplication {

  static final String RESOURCE = "faults";

  @Bean
  Guarded guarded() {
    return new Guarded();
  }

  /** The Redis client as the auto-configuration makes it (without the {@code share} fallback). */
  @Bean(destroyMethod = "close")
  @ConditionalOnBooleanProperty("faults.ledger")
  RedisClusterClient ledgerRedisClient(LettuceConnectionFactory factory, Environment environment) {
    return new RedisClusterClient(factory, environment.getProperty("weir.cluster.key-prefix", "weir"), false,
        environment.getProperty("weir.cluster.lease", Boolean.class, false));
  }

  @Bean
  @ConditionalOnBooleanProperty("faults.ledger")
  Ledger ledger() {
    return new Ledger();
  }

  /** The engine's client: the Redis client, what it answered recorded; each future is the client's own. */
  @Bean
  @Primary
  @ConditionalOnBooleanProperty("faults.ledger")
  ClusterClient ledgerClient(RedisClusterClient redis, Ledger ledger) {
    return new ClusterClient() {
      @Override
      public ClusterCounter counter(ClusterLimit limit) {
        ClusterCounter counter = redis.counter(limit);
        return permits -> {
          CompletableFuture<ClusterDecision> decision = counter.acquire(permits);
          decision.whenComplete((answer, failure) -> {
            if (answer == null) {
              ledger.unanswered.add(permits);
            } else if (answer.admitted()) {
              ledger.admittedPerCall.add(permits);
            }
          });
          return decision; // the engine cancels this very future at its deadline
        };
      }

      @Override
      public ClusterCounter counterOfAll(List<ClusterLimit> limits) {
        return null; // one rule per resource in these drills: counter() decides
      }

      @Override
      public ClusterLeases leases(ClusterLimit limit) {
        ClusterLeases leases = redis.leases(limit);
        return leases == null ? null : new ClusterLeases() {
          @Override
          public CompletableFuture<ClusterLease> lease(LeaseRequest request) {
            CompletableFuture<ClusterLease> lease = leases.lease(request);
            lease.whenComplete((answer, failure) -> {
              if (answer == null) {
                ledger.unanswered.add(request.wanted()); // Redis may have granted up to this
              } else {
                ledger.leased.add(answer.granted());
              }
            });
            return lease;
          }

          @Override
          public CompletableFuture<?> giveBack(ClusterLease lease, long unused) {
            CompletableFuture<?> back = leases.giveBack(lease, unused);
            back.whenComplete((taken, failure) -> {
              if (taken instanceof Long permits) {
                ledger.givenBack.add(permits);
              }
            });
            return back;
          }
        };
      }

      @Override
      public ClusterCounter keyCounter(ClusterKeyLimit limit) {
        return redis.keyCounter(limit);
      }

      @Override
      public ClusterLeases keyLeases(ClusterKeyLimit limit) {
        return redis.keyLeases(limit);
      }

      @Override
      public int liveInstances() {
        return redis.liveInstances();
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

  /**
   * What Redis answered the engine's client for flow rules: permits admitted per call, permits
   * granted in leases (answers the engine gave up on included), permits a give-back took out (by
   * Redis' reply; the settlements carried by lease requests are not told, so not counted), and the
   * permits of the requests that got no answer (cancelled at the deadline, or failed), which Redis
   * may have counted all the same.
   */
  static final class Ledger {
    final LongAdder admittedPerCall = new LongAdder();
    final LongAdder leased = new LongAdder();
    final LongAdder givenBack = new LongAdder();
    final LongAdder unanswered = new LongAdder();

    /** The most Redis can have counted for this instance: every answer, and every request unanswered. */
    long mostCounted() {
      return admittedPerCall.sum() + leased.sum() - givenBack.sum() + unanswered.sum();
    }

    @Override
    public String toString() {
      return "admitted per call " + admittedPerCall + ", leased " + leased + ", given back " + givenBack
          + ", unanswered " + unanswered;
    }
  }

  static class Guarded {
    @RateLimited(RESOURCE)
    public String call() {
      return "ok";
    }
  }
}
