package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterLimit;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code settle.lua} through the Redis client's {@link ClusterCounter#settle}, on a real
 * {@code redis-server}: a refund gives back on the state the call was counted in (never more than
 * it took, never what has left the window), a debt is counted there and refuses the next calls,
 * for every kind of state (bucketed and exact windows, several limits at once, per-key GCRA, the
 * lease window's per-call decisions), a debt of {@link Long#MAX_VALUE} is capped at one window, and
 * a clock step does not lock a limit out after settlements.
 */
@Timeout(60)
class SettleScriptTests extends WithSharedRedisServer {

  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private final String prefix = "settlescript" + PREFIXES.incrementAndGet();
  private final List<LettuceConnectionFactory> factories = new ArrayList<>();
  private final List<RedisClusterClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(RedisClusterClient::close);
    factories.forEach(LettuceConnectionFactory::destroy);
  }

  private RedisClusterClient client(boolean lease) {
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
    factory.afterPropertiesSet();
    factory.start();
    factories.add(factory);
    RedisClusterClient client = new RedisClusterClient(factory, prefix, false, lease);
    clients.add(client);
    ClusterFaults.await("the Redis client connects", client::connected);
    return client;
  }

  private static ClusterDecision acquire(ClusterCounter counter, int permits) throws Exception {
    return counter.acquire(permits).get(5, TimeUnit.SECONDS);
  }

  @SuppressWarnings("unchecked")
  private static List<Long> settle(ClusterCounter counter, ClusterDecision admitted, long delta) throws Exception {
    return (List<Long>) counter.settle(admitted.stampMicros(), delta).get(5, TimeUnit.SECONDS);
  }

  /** What a limit admits now, one permit at a time (counting them: the caller's test is done with it). */
  private static int admitsNow(ClusterCounter counter) throws Exception {
    int admitted = 0;
    while (admitted < 1000 && acquire(counter, 1).admitted()) {
      admitted++;
    }
    return admitted;
  }

  @Test
  void aBucketedWindowGivesBackWhatACallDidNotUseAndChargesItsDebtInItsBucket() throws Exception {
    RedisClusterClient client = client(false);
    ClusterCounter counter = client.counter(new ClusterLimit("api", "all", 10, Duration.ofSeconds(100)));
    ClusterDecision first = acquire(counter, 6);
    assertThat(first.admitted()).isTrue();
    assertThat(first.stampMicros()).as("the decision names its time, for the settlement").isPositive();
    assertThat(settle(counter, first, -4)).containsExactly(-4L);
    ClusterDecision second = acquire(counter, 3);
    assertThat(second.remaining()).as("2 used and 3 more of 10").isEqualTo(5);
    assertThat(settle(counter, second, 4)).as("a debt of 4").containsExactly(4L);
    assertThat(admitsNow(counter)).as("10 - 2 - 7").isEqualTo(1);
    String key = client.key(new ClusterLimit("api", "all", 10, Duration.ofSeconds(100)));
    assertThat((Long) redis.call("PTTL", key)).isPositive();
  }

  @Test
  void aRefundNeverGivesBackMoreThanTheCallTookNorWhatOthersCountedInOtherBuckets() throws Exception {
    RedisClusterClient client = client(false);
    ClusterCounter counter = client.counter(new ClusterLimit("api", "all", 10, Duration.ofSeconds(100)));
    ClusterDecision call = acquire(counter, 2);
    assertThat(settle(counter, call, -1_000)).as("at most its own 2").containsExactly(-2L);
    assertThat(settle(counter, call, -2)).as("its bucket holds nothing more").containsExactly(0L);
    assertThat(admitsNow(counter)).isEqualTo(10);
  }

  @Test
  void aDebtOfLongMaxValueIsCappedAtOneWindowAndOverflowsNothing() throws Exception {
    RedisClusterClient client = client(false);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofMillis(500));
    ClusterCounter counter = client.counter(limit);
    ClusterDecision call = acquire(counter, 1);
    assertThat(settle(counter, call, Long.MAX_VALUE)).containsExactly(10L);
    assertThat(acquire(counter, 1).admitted()).isFalse();
    ClusterFaults.await("the debt leaves with its window", () -> {
      try {
        return acquire(counter, 1).admitted();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    @SuppressWarnings("unchecked")
    List<Object> values = (List<Object>) redis.call("HVALS", client.key(limit));
    assertThat(values).allSatisfy(value -> assertThat(Long.parseLong((String) value)).isBetween(1L, 11L));
  }

  @Test
  void aRefundOfABucketThatLeftTheWindowGivesNothingBackAndALateDebtCountsNow() throws Exception {
    RedisClusterClient client = client(false);
    ClusterLimit limit = new ClusterLimit("api", "all", 5, Duration.ofMillis(1000));
    ClusterCounter counter = client.counter(limit);
    ClusterDecision call = acquire(counter, 5);
    long left = call.stampMicros() + 1_200_000;
    while (ClockSteps.redisMicros(redis) < left) {
      Thread.sleep(20);
    }
    assertThat(settle(counter, call, -5)).as("nothing of it is counted any more").containsExactly(0L);
    assertThat(settle(counter, call, 3)).as("a debt after its window counts now").containsExactly(3L);
    assertThat(admitsNow(counter)).isEqualTo(2);
  }

  @Test
  void anExactWindowRemovesTheCallsOwnMembersAndKeepsTheNamesAtItsTimeNumberedFromZero() throws Exception {
    RedisClusterClient client = client(false);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofSeconds(100), true);
    ClusterCounter counter = client.counter(limit);
    ClusterDecision call = acquire(counter, 7);
    assertThat(settle(counter, call, -4)).containsExactly(-4L);
    String key = client.key(limit);
    String stamp = Long.toString(call.stampMicros());
    assertThat(redis.call("ZRANGEBYSCORE", key, stamp, stamp)).asList()
        .containsExactlyInAnyOrder(stamp + ":0", stamp + ":1", stamp + ":2");
    assertThat(settle(counter, call, 2)).as("a debt at the call's time").containsExactly(2L);
    assertThat(redis.call("ZRANGEBYSCORE", key, stamp, stamp)).asList()
        .containsExactlyInAnyOrder(stamp + ":0", stamp + ":1", stamp + ":2", stamp + ":3", stamp + ":4");
    assertThat(admitsNow(counter)).isEqualTo(5);
    assertThat(settle(counter, call, Long.MAX_VALUE)).as("the log holds at most twice the limit")
        .containsExactly(10L);
    assertThat(settle(counter, call, Long.MAX_VALUE)).containsExactly(0L);
    assertThat((Long) redis.call("ZCARD", key)).isEqualTo(20L);
  }

  @Test
  void severalLimitsSettleTogetherEachOnItsOwnState() throws Exception {
    RedisClusterClient client = client(false);
    ClusterLimit window = new ClusterLimit("api", "all", 10, Duration.ofSeconds(100));
    ClusterLimit exact = new ClusterLimit("api", "all", 20, Duration.ofSeconds(100), true);
    ClusterCounter both = client.counterOfAll(List.of(window, exact));
    assertThat(both).isNotNull();
    ClusterDecision call = acquire(both, 8);
    assertThat(settle(both, call, -5)).containsExactly(-5L, -5L);
    assertThat(admitsNow(both)).as("the window's 10 - 3").isEqualTo(7);
    assertThat((Long) redis.call("ZCARD", client.key(exact))).isEqualTo(10L);
  }

  @Test
  void aKeyOfAParamFlowRuleMovesItsArrivalTimeBackForARefundAndOnForADebt() throws Exception {
    RedisClusterClient client = client(false);
    ClusterKeyLimit limit = new ClusterKeyLimit("api", "param=0,100000ms", "alice", 10, Duration.ofSeconds(100), 0);
    ClusterCounter counter = client.keyCounter(limit);
    ClusterDecision call = acquire(counter, 8);
    assertThat(settle(counter, call, -6)).containsExactly(-6L);
    assertThat(acquire(counter, 8).admitted()).as("2 used of 10").isTrue();
    ClusterDecision next = acquire(counter, 0);
    assertThat(settle(counter, next, Long.MAX_VALUE)).as("capped at the capacity").containsExactly(10L);
    assertThat(acquire(counter, 1).admitted()).isFalse();
    long ttl = (Long) redis.call("PTTL", client.key(limit));
    assertThat(ttl).as("the state lasts until the bucket refills, no longer than a full one").isBetween(1L, 100_000L);
  }

  @Test
  void aRefundOfAKeyWhoseBucketRefilledGivesNothingBack() throws Exception {
    RedisClusterClient client = client(false);
    ClusterKeyLimit limit = new ClusterKeyLimit("api", "param=0,100ms", "bob", 10, Duration.ofMillis(100), 0);
    ClusterCounter counter = client.keyCounter(limit);
    ClusterDecision call = acquire(counter, 10);
    long refilled = call.stampMicros() + 150_000;
    while (ClockSteps.redisMicros(redis) < refilled) {
      Thread.sleep(20);
    }
    assertThat(settle(counter, call, -10)).containsExactly(0L);
    assertThat(redis.call("EXISTS", client.key(limit))).isEqualTo(0L);
  }

  @Test
  void aCallDecidedAloneOnALeaseWindowSettlesInTheBucketItWasCountedIn() throws Exception {
    RedisClusterClient client = client(true);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofSeconds(100));
    ClusterCounter counter = client.counter(limit);
    ClusterDecision call = acquire(counter, 9);
    assertThat(settle(counter, call, -7)).containsExactly(-7L);
    ClusterDecision next = acquire(counter, 8);
    assertThat(next.admitted()).isTrue();
    assertThat(settle(counter, next, 5)).containsExactly(5L);
    assertThat(admitsNow(counter)).isZero();
  }

  /**
   * Redis' clock stepped back an hour after calls were counted and settled: the first decision after
   * it re-anchors the buckets (settlements included), so the limit admits again within a window, and
   * a settlement sent across the step neither fails nor locks the limit out.
   */
  @Test
  void aClockStepBackAfterSettlementsDoesNotLockTheLimitOut() throws Exception {
    RedisClusterClient client = client(false);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofMillis(500));
    ClusterCounter counter = client.counter(limit);
    ClusterDecision call = acquire(counter, 5);
    settle(counter, call, 5); // the window is full: 10
    ClockSteps.hashAhead(redis, client.key(limit), 3_600_000, 50);
    assertThat(settle(counter, call, -3)).as("its bucket moved with the step: nothing found, nothing given back")
        .containsExactly(0L);
    long start = ClockSteps.redisMicros(redis);
    ClusterFaults.await("admitted again after the step back", () -> {
      try {
        return acquire(counter, 1).admitted();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(ClockSteps.redisMicros(redis) - start).as("within about a window, not the hour").isLessThan(5_000_000L);
  }

  /** A step forward: the settlement of a call counted before it lies behind the window and gives nothing back. */
  @Test
  void aClockStepForwardLeavesAnOldAdmissionsRefundOutOfTheCount() throws Exception {
    RedisClusterClient client = client(false);
    ClusterLimit limit = new ClusterLimit("api", "all", 10, Duration.ofSeconds(100), true);
    ClusterCounter counter = client.counter(limit);
    ClusterDecision call = acquire(counter, 4);
    ClusterDecision stepped = new ClusterDecision(true, 0, 0, call.stampMicros() - 200_000_000L);
    assertThat(settle(counter, stepped, -4)).as("its time lies more than a window back").containsExactly(0L);
    assertThat(settle(counter, stepped, 3)).as("a debt then counts now").containsExactly(3L);
    assertThat(admitsNow(counter)).isEqualTo(3);
  }
}
