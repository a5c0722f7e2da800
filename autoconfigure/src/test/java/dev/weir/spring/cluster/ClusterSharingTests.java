package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.cluster.ClusterLimit;
import dev.weir.spring.redis.RedisClusterClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Instances of one application, each its own Spring context with its own engine and Lettuce
 * connection, sharing cluster-mode limits in a real {@code redis-server} that the test owns.
 *
 * <p>Decisions get a generous deadline and the {@code deny} fallback here: a decision that missed
 * Redis can only refuse, so "at most count" cannot be met by luck, and every test also asserts
 * that no fallback happened at all.
 */
class ClusterSharingTests extends WithSharedRedisServer {

  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private final String prefix = "sharing" + PREFIXES.incrementAndGet();

  @Test
  void twoInstancesAdmitAtMostCountTogetherUnderABurstFromManyThreads() throws Exception {
    ClusterSharingApplication.Quotes a = quotes(instance("50", "10s"));
    ClusterSharingApplication.Quotes b = quotes(instance("50", "10s"));
    int threadsPerInstance = 8;
    int callsPerThread = 25;
    ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerInstance);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger passedA = new AtomicInteger();
    AtomicInteger passedB = new AtomicInteger();
    AtomicInteger blocked = new AtomicInteger();
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 2 * threadsPerInstance; t++) {
      ClusterSharingApplication.Quotes target = t % 2 == 0 ? a : b;
      AtomicInteger passed = t % 2 == 0 ? passedA : passedB;
      done.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < callsPerThread; i++) {
          try {
            target.quote();
            passed.incrementAndGet();
          } catch (FlowException e) {
            blocked.incrementAndGet();
          }
        }
        return null;
      }));
    }
    long began = System.nanoTime();
    start.countDown();
    for (Future<?> future : done) {
      future.get();
    }
    long burst = System.nanoTime() - began;
    pool.shutdown();

    int attempts = 2 * threadsPerInstance * callsPerThread;
    assertThat(passedA.get() + passedB.get() + blocked.get()).isEqualTo(attempts);
    // The window is 10 s in buckets of 1 s and the key is new: Redis decided the burst within its
    // span, which touches at most this many buckets, and any ten of them hold at most the count. A
    // burst under 9 s stays in one window: exactly the count.
    long buckets = burst / Duration.ofSeconds(1).toNanos() + 2;
    assertThat(passedA.get() + passedB.get()).as("admitted by both in a burst of %d ms", burst / 1_000_000)
        .isBetween(50, (int) (50 * ((buckets + 9) / 10)));
    // Which instance gets how many of the 50 is up to the scheduler (on a loaded machine one
    // instance's threads may take them all before the other's run); that both counted in the one
    // shared window is what the store's own counts show: every call of each instance was decided
    // there, and together they admitted the count.
    ClusterStatus statusA = status(instances.get(0));
    ClusterStatus statusB = status(instances.get(1));
    assertThat(statusA.fallbacks() + statusB.fallbacks()).isZero();
    assertThat(statusA.admitted()).isEqualTo(passedA.get());
    assertThat(statusB.admitted()).isEqualTo(passedB.get());
    assertThat(statusA.admitted() + statusA.blocked()).as("instance A's calls, each decided by Redis")
        .isEqualTo(threadsPerInstance * callsPerThread);
    assertThat(statusB.admitted() + statusB.blocked()).as("instance B's calls, each decided by Redis")
        .isEqualTo(threadsPerInstance * callsPerThread);
    assertThat(statusA.blocked() + statusB.blocked()).isEqualTo(blocked.get());
  }

  @Test
  void anInstanceStartedLaterSeesWhatTheOthersCounted() {
    ClusterSharingApplication.Quotes first = quotes(instance("5", "10s"));
    for (int i = 0; i < 3; i++) {
      first.quote();
    }
    ClusterSharingApplication.Quotes second = quotes(instance("5", "10s"));
    second.quote();
    second.quote();
    assertThatThrownBy(second::quote).isInstanceOf(FlowException.class);
    assertThatThrownBy(first::quote).isInstanceOf(FlowException.class);
  }

  @Test
  void oneHashPerRuleWithTheResourceAsHashTagBucketsByRedisTimeAndAnExpiry() {
    ClusterSharingApplication.Quotes quotes = quotes(instance("100", "10s"));
    for (int i = 0; i < 7; i++) {
      quotes.quote();
    }
    String key = prefix + ":{shared}:flow:all:10000ms";
    assertThat(redis.call("KEYS", prefix + ":*")).isEqualTo(List.of(key));
    assertThat(redis.call("TYPE", key)).isEqualTo("hash");
    assertThat(instances.get(0).getBean(RedisClusterClient.class)
        .key(new ClusterLimit("shared", "all", 100, Duration.ofSeconds(10)))).isEqualTo(key);

    @SuppressWarnings("unchecked")
    List<Object> fields = (List<Object>) redis.call("HGETALL", key);
    long sum = 0;
    long bucketNow = redisMillis() / 1000; // 10 s in 10 buckets of 1000 ms
    for (int i = 0; i < fields.size(); i += 2) {
      long bucket = Long.parseLong((String) fields.get(i));
      assertThat(bucket).isBetween(bucketNow - 9, bucketNow);
      sum += Long.parseLong((String) fields.get(i + 1));
    }
    assertThat(sum).isEqualTo(7);
    // Expires a window and a bucket after the last write.
    assertThat((Long) redis.call("PTTL", key)).isBetween(1L, 11_000L);
  }

  @Test
  void anIdleRuleLeavesNoKeyBehind() throws Exception {
    ClusterSharingApplication.Quotes quotes = quotes(instance("100", "200ms"));
    quotes.quote();
    String key = prefix + ":{shared}:flow:all:200ms";
    // An expiry of a window and a bucket (-2 once it has passed, should this thread be that late;
    // -1 would be a key that never expires).
    assertThat((Long) redis.call("PTTL", key)).isLessThanOrEqualTo(220L).isNotEqualTo(-1L);
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while ((Long) redis.call("EXISTS", key) != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // polling a real expiry in Redis; nothing here can be driven
    }
    assertThat(redis.call("EXISTS", key)).isEqualTo(0L);
  }

  @Test
  void aRefusalCarriesRedisRetryAfter() {
    ClusterSharingApplication.Quotes quotes = quotes(instance("2", "10s"));
    long began = System.nanoTime();
    quotes.quote();
    quotes.quote();
    FlowException refused = catchThrowableOfType(FlowException.class, quotes::quote);
    long elapsed = System.nanoTime() - began;
    // The first permit leaves the window when its bucket (1 s, begun at most 1 s before it) is 10 s
    // old: at most 10 s after the refusal, and at least 9 s after the first call, of which the
    // elapsed time has passed (1 ms for Redis' rounding).
    assertThat(refused).isNotNull();
    assertThat(refused.retryAfter()).isLessThanOrEqualTo(Duration.ofSeconds(10))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(9).minusNanos(elapsed).minusMillis(1));
  }

  @Test
  void metersCountDecisionsByOutcomeAndTheirLatency() {
    ConfigurableApplicationContext context = instance("3", "10s");
    ClusterSharingApplication.Quotes quotes = quotes(context);
    for (int i = 0; i < 5; i++) {
      try {
        quotes.quote();
      } catch (FlowException e) {
        // the 4th and 5th
      }
    }
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    assertThat(meters.get("weir.cluster.decisions").tag("outcome", "admitted").functionCounter().count()).isEqualTo(3);
    assertThat(meters.get("weir.cluster.decisions").tag("outcome", "blocked").functionCounter().count()).isEqualTo(2);
    assertThat(meters.get("weir.cluster.decisions").tag("outcome", "fallback").functionCounter().count()).isZero();
    assertThat(meters.get("weir.cluster.latency").functionTimer().count()).isEqualTo(5);
    assertThat(meters.get("weir.cluster.latency").functionTimer().totalTime(TimeUnit.NANOSECONDS)).isPositive();
    assertThat(meters.get("weir.cluster.breaker.state").tag("state", "closed").gauge().value()).isEqualTo(1);
    assertThat(meters.get("weir.cluster.inflight").gauge().value()).isZero();
    assertThat(meters.get("weir.cluster.fallbacks").functionCounters()).hasSize(4)
        .allSatisfy(counter -> assertThat(counter.count()).isZero());
  }

  /** A settle of a call Redis admitted, in a real context: one settlement, counted by outcome. */
  @Test
  void metersCountSettlementsByOutcome() {
    ConfigurableApplicationContext context = instance("10", "10s");
    dev.weir.Weir weir = context.getBean(dev.weir.Weir.class);
    try (dev.weir.Entry entry = weir.entry("shared", dev.weir.EntryType.OUT, 2)) {
      entry.settle(7);
    }
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    ClusterFaults.await("the settlement answered",
        () -> meters.get("weir.cluster.settlements").tag("outcome", "settled").functionCounter().count() == 1);
    assertThat(meters.get("weir.cluster.settlements").tag("outcome", "unsettled").functionCounter().count()).isZero();
    ClusterSharingApplication.Quotes quotes = quotes(context);
    for (int i = 0; i < 3; i++) {
      quotes.quote(); // 2 + a debt of 5 + 3 fill the 10
    }
    assertThat(catchThrowableOfType(FlowException.class, quotes::quote)).isNotNull();
  }

  private ConfigurableApplicationContext instance(String count, String interval) {
    return instance(ClusterSharingApplication.class, prefix, Map.of(
        "weir.cluster.timeout", "2s",
        "weir.cluster.fallback", "deny",
        "weir.flow[0].resource", "shared",
        "weir.flow[0].count", count,
        "weir.flow[0].interval", interval,
        "weir.flow[0].cluster-mode", "true"));
  }

  private static ClusterSharingApplication.Quotes quotes(ConfigurableApplicationContext context) {
    return context.getBean(ClusterSharingApplication.Quotes.class);
  }

  private static ClusterStatus status(ConfigurableApplicationContext context) {
    ClusterStatus status = context.getBean(Weir.class).cluster();
    assertThat(status).isNotNull();
    return status;
  }

  private static long redisMillis() {
    @SuppressWarnings("unchecked")
    List<Object> time = (List<Object>) redis.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
  }
}
