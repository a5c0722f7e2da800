package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.LeaseRequest;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lease scripts ({@code lease-window.lua}, {@code lease-gcra.lua}) through the Redis client's
 * {@link ClusterLeases}, on a real {@code redis-server}: what a grant counts and where, refusals,
 * give-backs at most once (and never after Redis lost the lease), settlements, shared state with
 * per-call decisions, and quotas that span days and months.
 */
@Timeout(60)
class LeaseScriptTests extends WithSharedRedisServer {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  private static final long VALID = TimeUnit.MILLISECONDS.toNanos(100);

  private final String prefix = "leasescript" + PREFIXES.incrementAndGet();
  private final LeasedInstances fleet = new LeasedInstances();

  @AfterEach
  void closeFleet() {
    fleet.close();
  }

  private static ClusterLease lease(ClusterLeases leases, long wanted, long minimum) throws Exception {
    return leases.lease(new LeaseRequest(wanted, minimum, VALID, false, 0, null, 0)).get(5, TimeUnit.SECONDS);
  }

  /** The permits counted in a lease hash: the sum of its numeric fields. */
  private long counted(String key) {
    @SuppressWarnings("unchecked")
    List<Object> fields = (List<Object>) redis.call("HGETALL", key);
    long sum = 0;
    for (int i = 0; i < fields.size(); i += 2) {
      if (((String) fields.get(i)).chars().allMatch(Character::isDigit)) {
        long value = Long.parseLong((String) fields.get(i + 1));
        assertThat(value).as("bucket %s of %s", fields.get(i), key).isPositive();
        sum += value;
      }
    }
    return sum;
  }

  @Test
  void aGrantCountsItsPermitsAtOnceAndTheLimitRefusesWithARetryAfterWithinTheWindow() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterLimit limit = new ClusterLimit("api", "all", 100, Duration.ofSeconds(10), true);
    ClusterLeases leases = client.leases(limit);
    assertThat(leases).isNotNull();
    String key = client.leaseKey(limit);
    assertThat(key).isEqualTo(prefix + ":{api}:lease:all:10000ms");

    ClusterLease first = lease(leases, 60, 1);
    assertThat(first.granted()).isEqualTo(60);
    assertThat(first.remaining()).isEqualTo(40);
    assertThat(first.validNanos()).isEqualTo(VALID);
    assertThat(first.receipt()).startsWith(key + ":r:");
    assertThat(counted(key)).isEqualTo(60);

    ClusterLease second = lease(leases, 60, 1);
    assertThat(second.granted()).as("fewer than wanted: what is free").isEqualTo(40);
    ClusterLease third = lease(leases, 5, 1);
    assertThat(third.refused()).isTrue();
    assertThat(third.granted()).isZero();
    assertThat(third.retryAfterMillis()).isBetween(1L, 10_000L + 100 + 100);
    assertThat(counted(key)).isEqualTo(100);

    // A per-call decision on the same key counts with the leases.
    ClusterDecision call = client.counter(limit).acquire(1).get(5, TimeUnit.SECONDS);
    assertThat(call.admitted()).isFalse();
  }

  @Test
  void aGiveBackTakesTheUnspentPermitsOutOnceAndNeverAfterRedisLostTheLease() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterLimit limit = new ClusterLimit("api", "all", 100, Duration.ofSeconds(10), false);
    ClusterLeases leases = client.leases(limit);
    String key = client.leaseKey(limit);

    ClusterLease lease = lease(leases, 50, 1);
    assertThat(leases.giveBack(lease, 30).get(5, TimeUnit.SECONDS)).isEqualTo(30L);
    assertThat(counted(key)).isEqualTo(20);
    assertThat(leases.giveBack(lease, 30).get(5, TimeUnit.SECONDS)).as("the same lease again").isEqualTo(0L);
    assertThat(counted(key)).isEqualTo(20);

    // Settled with the next request: the rest of the lease goes back before the grant.
    ClusterLease next = lease(leases, 10, 1);
    ClusterLease settled = leases.lease(new LeaseRequest(10, 1, VALID, false, 0, next, 10)).get(5, TimeUnit.SECONDS);
    assertThat(settled.granted()).isEqualTo(10);
    assertThat(counted(key)).isEqualTo(20 + 10);

    // Redis flushed mid-lease: the lease given back afterwards changes nothing, not another's count.
    ClusterLease held = lease(leases, 40, 1);
    redis.command("FLUSHALL");
    ClusterLease other = lease(leases, 25, 1);
    assertThat(other.granted()).isEqualTo(25);
    assertThat(leases.giveBack(held, 40).get(5, TimeUnit.SECONDS)).isEqualTo(0L);
    assertThat(counted(key)).isEqualTo(25);
  }

  @Test
  void aKeysLeaseMovesTheSameStateThatPerCallDecisionsOfTheKeyRead() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterKeyLimit limit = new ClusterKeyLimit("api", "0", "alice", 100, Duration.ofSeconds(100), 0);
    ClusterLeases leases = client.keyLeases(limit);
    assertThat(leases).isNotNull();

    ClusterLease lease = lease(leases, 90, 1);
    assertThat(lease.granted()).isEqualTo(90);
    ClusterDecision call = client.keyCounter(limit).acquire(1).get(5, TimeUnit.SECONDS);
    assertThat(call.admitted()).isTrue();
    assertThat(call.remaining()).as("free after the lease and this call").isEqualTo(9);
    assertThat(lease(leases, 20, 10).refused()).isTrue();

    assertThat(leases.giveBack(lease, 50).get(5, TimeUnit.SECONDS)).isEqualTo(50L);
    assertThat(leases.giveBack(lease, 50).get(5, TimeUnit.SECONDS)).isEqualTo(0L);
    ClusterDecision after = client.keyCounter(limit).acquire(1).get(5, TimeUnit.SECONDS);
    assertThat(after.remaining()).isBetween(57L, 58L); // 50 back, one more call; refill of 1/s may add one
  }

  @Test
  void quotasOfADayAndOfThirtyDaysCountBeyondIntAndOutliveTheirInstances() throws Exception {
    ClusterLimit monthly = new ClusterLimit("api", "all", 3_000_000_000.0, Duration.ofDays(30), false);
    ClusterLimit daily = new ClusterLimit("api", "all", 5, Duration.ofDays(1), true);
    RedisClusterClient first = fleet.client(redis, prefix);
    ClusterLease big = lease(first.leases(monthly), 2_500_000_000L, 1);
    assertThat(big.granted()).isEqualTo(2_500_000_000L);
    assertThat(big.remaining()).isEqualTo(500_000_000L);
    long pttl = Long.parseLong(redis.command("PTTL", first.leaseKey(monthly)));
    assertThat(pttl).as("the key lives a window and a bucket after the lease").isGreaterThan(Duration.ofDays(30).toMillis());
    ClusterLease day = lease(first.leases(daily), 3, 1);
    assertThat(day.granted()).isEqualTo(3);

    // Another instance (or this one after a restart): Redis still counts both.
    RedisClusterClient second = fleet.client(redis, prefix);
    ClusterLease rest = lease(second.leases(monthly), 1_000_000_000L, 1);
    assertThat(rest.granted()).isEqualTo(500_000_000L);
    ClusterLease none = lease(second.leases(monthly), 1, 1);
    assertThat(none.refused()).isTrue();
    assertThat(none.retryAfterMillis()).as("a retry-after of about 30 days, in ms")
        .isBetween(Duration.ofDays(30).toMillis(), Duration.ofDays(31).toMillis());
    assertThat(second.counter(daily).acquire(2).get(5, TimeUnit.SECONDS).admitted()).isTrue();
    ClusterDecision sixth = second.counter(daily).acquire(1).get(5, TimeUnit.SECONDS);
    assertThat(sixth.admitted()).isFalse();
    assertThat(sixth.retryAfterMillis()).isGreaterThan(Duration.ofHours(23).toMillis());
  }
}
