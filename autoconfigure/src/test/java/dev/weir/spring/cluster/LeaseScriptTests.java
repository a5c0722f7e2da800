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

  /**
   * Redis' clock stepped back an hour (field t, the buckets and the expiry an hour ahead of TIME)
   * on a saturated rule of 10 per second: standing still at t, as before, it refused everything for
   * the hour, each refusal saying "retry within a second". Re-anchored, the ten permits leave the
   * count within window + v + 2 buckets of the first decision after the step, and not sooner than
   * they would have without it (their lease's end and a window).
   */
  @Test
  void aClockStepBackOfAnHourAdmitsAgainWithinAWindowAValidityAndTwoBuckets() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofSeconds(1), false);
    ClusterLeases leases = client.leases(limit);
    String key = client.leaseKey(limit);
    long window = 1_000_000;
    long width = window / 100;
    long valid = TimeUnit.NANOSECONDS.toMicros(VALID);
    assertThat(lease(leases, 10, 1).granted()).isEqualTo(10);
    ClockSteps.hashAhead(redis, key, 3_600_000_000L, width);

    ClusterLease first = lease(leases, 1, 1);
    assertThat(first.refused()).as("the ten permits are still counted").isTrue();
    assertThat(first.retryAfterMillis()).isLessThanOrEqualTo((window + valid + 2 * width) / 1000);
    long stepped = first.stampMicros();
    long start = ClockSteps.redisMicros(redis);
    ClusterLease granted = null;
    while (granted == null && ClockSteps.redisMicros(redis) < start + 3 * window) {
      ClusterLease next = lease(leases, 1, 1);
      if (next.refused()) {
        assertThat(next.stampMicros()).as("refused after the documented bound").isLessThan(stepped + window + valid + 2 * width);
        Thread.sleep(Math.min(20, next.retryAfterMillis()));
      } else {
        granted = next;
      }
    }
    assertThat(granted).as("admitted again after the step back").isNotNull();
    assertThat(granted.stampMicros()).as("not sooner than without the step").isGreaterThan(stepped + window + valid - width);
    assertThat(counted(key)).isEqualTo(1);
  }

  /**
   * Steps back of every size, one after another, below a bucket (the script stands still) and
   * above (it re-anchors), on a saturated rule of 10 per 100 s: each step moves the counted permits
   * back by no more than the step, so none leaves before its window on Redis' steady clock and
   * nothing is admitted. (Dropping or ignoring what lies ahead of the clock would admit 10 each time.)
   */
  @Test
  void stepsBackOfEverySizeOneAfterAnotherNeverLetMoreThanTheLimitIntoAWindow() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofSeconds(100), false);
    ClusterLeases leases = client.leases(limit);
    String key = client.leaseKey(limit);
    long width = 1_000_000;
    long start = ClockSteps.redisMicros(redis);
    assertThat(lease(leases, 10, 1).granted()).isEqualTo(10);
    long[] steps = {1_000, 500_000, 999_999, 1_000_000, 1_500_000, 7_000_000, 60_000_000, 3_600_000_000L};
    int admitted = 0;
    for (int round = 0; round < 5; round++) {
      for (long step : steps) {
        ClockSteps.hashAhead(redis, key, step, width);
        admitted += lease(leases, 1, 1).granted();
        admitted += client.counter(limit).acquire(1).get(5, TimeUnit.SECONDS).admitted() ? 1 : 0;
      }
    }
    assertThat(ClockSteps.redisMicros(redis) - start).as("the steps took less than a window").isLessThan(90_000_000L);
    assertThat(admitted).isZero();
    assertThat(counted(key)).isEqualTo(10);
  }

  /**
   * A lease granted before a re-anchor is not given back after it: its bucket moved, and the
   * bucket its receipt names may by then count another lease's permits.
   */
  @Test
  void aReAnchorVoidsTheReceiptsOfTheLeasesGrantedBeforeIt() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterLimit limit = new ClusterLimit("api", "all", 100, Duration.ofSeconds(10), false);
    ClusterLeases leases = client.leases(limit);
    String key = client.leaseKey(limit);
    ClusterLease before = lease(leases, 40, 1);
    ClockSteps.hashAhead(redis, key, 3_600_000_000L, 100_000);
    ClusterLease after = lease(leases, 30, 1);
    assertThat(after.granted()).isEqualTo(30);
    assertThat(leases.giveBack(before, 40).get(5, TimeUnit.SECONDS)).isEqualTo(0L);
    assertThat(counted(key)).isEqualTo(70);
    assertThat(leases.giveBack(after, 30).get(5, TimeUnit.SECONDS)).isEqualTo(30L);
    assertThat(counted(key)).isEqualTo(40);
  }

  /**
   * A key's GCRA state an hour ahead of Redis' clock (a step back): re-anchored at an empty bucket
   * refilling from now, not refused for the hour.
   */
  @Test
  void aKeysStateAnHourAheadIsReAnchoredAtAnEmptyBucket() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterKeyLimit limit = new ClusterKeyLimit("api", "0", "bob", 10, Duration.ofSeconds(1), 0);
    ClusterLeases leases = client.keyLeases(limit);
    ClusterLease all = lease(leases, 10, 1);
    assertThat(all.granted()).isEqualTo(10);
    String key = all.receipt().substring(0, all.receipt().lastIndexOf(":r:"));
    ClockSteps.tatAhead(redis, key, 3_600_000_000L);
    ClusterLease refused = lease(leases, 1, 1);
    assertThat(refused.refused()).isTrue();
    assertThat(refused.retryAfterMillis()).as("one emission, not an hour").isLessThanOrEqualTo(100L);
    long tat = Long.parseLong(redis.command("GET", key));
    assertThat(tat - refused.stampMicros()).as("re-anchored at the horizon").isBetween(999_999L, 1_000_001L);
  }

  /**
   * Fields the script never writes, as a hostile or corrupted Redis could hold them: a negative
   * count frees nothing, a count that is not a number counts as the limit, and a malformed demand
   * or receipt is ignored; none of them is an error of the script (a failing script would open the
   * breaker in front of Redis for every cluster rule).
   */
  @Test
  void storedFieldsTheScriptNeverWritesAreCheckedNotTrusted() throws Exception {
    RedisClusterClient client = fleet.client(redis, prefix);
    ClusterLimit limit = new ClusterLimit("api", "all", 100, Duration.ofSeconds(10), false);
    ClusterLeases leases = client.leases(limit);
    String key = client.leaseKey(limit);
    ClusterLease first = lease(leases, 50, 1);
    assertThat(first.granted()).isEqualTo(50);
    @SuppressWarnings("unchecked")
    long bucket = ((List<Object>) redis.call("HKEYS", key)).stream().map(String.class::cast)
        .filter(field -> field.chars().allMatch(Character::isDigit)).mapToLong(Long::parseLong).max().orElseThrow();
    redis.call("HSET", key, Long.toString(bucket - 1), "-1000");
    redis.call("HSET", key + ":d", "ghost", "garbage");
    redis.call("SET", first.receipt(), "not:a:receipt");
    assertThat(lease(leases, 100, 1).granted()).as("a negative count frees nothing").isEqualTo(50);
    assertThat(leases.giveBack(first, 50).get(5, TimeUnit.SECONDS)).isEqualTo(0L);
    redis.call("HSET", key, Long.toString(bucket - 2), "lots");
    assertThat(lease(leases, 1, 1).refused()).as("a count that is not a number counts as the limit").isTrue();
    assertThat(client.counter(limit).acquire(1).get(5, TimeUnit.SECONDS).admitted()).isFalse();
  }
}
