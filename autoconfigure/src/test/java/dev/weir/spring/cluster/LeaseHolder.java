package dev.weir.spring.cluster;

import dev.weir.ClusterStatus;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An instance that {@link ClusterLeaseCrashTests} starts as a JVM of its own and kills with
 * {@code SIGKILL}: it connects to the test's {@code redis-server} with leases on, spends
 * {@code calls} single permits of a cluster-mode rule of {@code count} per day as fast as it can
 * (and a few more when its leases in hand happen to be spent then, so that it holds some), prints {@code HOLDING <admitted> <held> <lease round trips>} (held: what its leases in hand have
 * not spent) and then waits for its standard input to close, holding its leases.
 *
 * <p>Arguments: Redis port, key prefix, resource, count, calls.
 */
final class LeaseHolder {

  private LeaseHolder() {
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String prefix = args[1];
    String resource = args[2];
    long count = Long.parseLong(args[3]);
    int calls = Integer.parseInt(args[4]);
    LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
    factory.afterPropertiesSet();
    factory.start();
    RedisClusterClient client = new RedisClusterClient(factory, prefix, false, true);
    ClusterFaults.await("the Redis client connects", client::connected);
    FlowRule rule = FlowRule.builder(resource).count(count).interval(Duration.ofDays(1)).clusterMode(true).build();
    Weir weir = Weir.builder().cluster(client, LeasedInstances.options(ClusterFallback.DENY, Duration.ofSeconds(2))
        .withLease(true)).rules(RuleSet.of(rule)).build();
    for (int i = 0; i < calls; i++) {
      LeasedInstances.call(weir, resource);
    }
    // The last call may have spent the last permit of the lease in hand while the next lease was
    // still on its way: then nothing is held, and a kill would strand nothing. A few calls more (at
    // most two blocks' worth) take a fresh lease and leave some of it unspent.
    long held = held(weir);
    for (int more = 0; held <= 0 && more < 2 * (count * 10 / 86_400 + 1); more++) {
      LeasedInstances.call(weir, resource);
      held = held(weir);
    }
    ClusterStatus status = Objects.requireNonNull(weir.cluster());
    System.out.println("HOLDING " + status.admitted() + " " + held + " " + status.leaseRequests() + " "
        + status.fallbacks());
    System.out.flush();
    while (System.in.read() >= 0) {
      // the test kills this process; if the test's JVM goes away first, standard input closes
    }
    System.exit(3);
  }

  /** What the leases in hand have not spent: leased, less given back, less what calls took of them. */
  private static long held(Weir weir) {
    ClusterStatus status = Objects.requireNonNull(weir.cluster());
    long fromLeases = status.admitted() - (status.latencyCount() - status.leaseRequests());
    return status.leasedPermits() - status.returnedPermits() - fromLeases;
  }
}
