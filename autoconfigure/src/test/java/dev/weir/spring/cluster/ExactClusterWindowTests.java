package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code exact: true} with {@code cluster-mode: true}: two instances (Spring contexts, each with its
 * engine and Lettuce connection) against one real {@code redis-server}, threads on both, on the
 * real clock. Every admission's Redis time stamp is recorded, and no {@code interval}-long span of
 * them, across both instances, may hold more than {@code count}.
 */
@Timeout(120)
class ExactClusterWindowTests extends WithSharedRedisServer {

  @Test
  void twoInstancesUnderThreadsForThreeSecondsNeverAdmitMoreThanCountInAnyIntervalLongSpan() throws Exception {
    int count = 20;
    Duration interval = Duration.ofMillis(500);
    ConfigurableApplicationContext a = instance("exact-threads", count, interval);
    ConfigurableApplicationContext b = instance("exact-threads", count, interval);
    StampingApplication.Guarded[] targets = {guarded(a), guarded(b)};
    AtomicLong passed = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    List<Throwable> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      StampingApplication.Guarded target = targets[t % 2];
      Thread thread = new Thread(() -> {
        while (!stop.get()) { // ends when told: each call is bounded by the 2 s timeout
          try {
            target.call();
            passed.incrementAndGet();
          } catch (FlowException e) {
            refused.incrementAndGet();
          } catch (RuntimeException | Error e) {
            unexpected.add(e);
          }
        }
      }, "exact-load-" + t);
      thread.start();
      threads.add(thread);
    }
    Thread.sleep(3_000); // and until Redis refused a call, so that the limit was reached
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (refused.get() == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(30_000);
      assertThat(thread.isAlive()).isFalse();
    }

    List<Long> stamps = new ArrayList<>(stamps(a));
    stamps.addAll(stamps(b));
    System.out.printf("[exact-threads] passed %d, refused %d, stamps %d (a %d, b %d), most in a span %d%n",
        passed.get(), refused.get(), stamps.size(), stamps(a).size(), stamps(b).size(),
        Spans.mostInAnySpan(stamps, interval.toNanos() / 1000));
    assertThat(unexpected).isEmpty();
    assertThat(status(a).fallbacks() + status(b).fallbacks()).as("every decision made by Redis").isZero();
    assertThat((long) stamps.size()).as("a stamp per admission").isEqualTo(passed.get());
    assertThat(stamps(a)).isNotEmpty();
    assertThat(stamps(b)).isNotEmpty();
    assertThat(refused.get()).isPositive();
    // The bound, by Redis time, over both instances; and it was reached (the limit is what refused).
    assertThat(Spans.mostInAnySpan(stamps, interval.toNanos() / 1000)).isEqualTo(count);
    // And every refusal, by Redis time, had the count of admissions in the interval before it.
    List<Long> refusals = new ArrayList<>(a.getBean(StampingApplication.Stamps.class).refused);
    refusals.addAll(b.getBean(StampingApplication.Stamps.class).refused);
    long intervalMicros = interval.toNanos() / 1000;
    long[] sorted = stamps.stream().mapToLong(Long::longValue).sorted().toArray();
    List<Long> unjustified = new ArrayList<>();
    for (long at : refusals) {
      // admissions in (at - interval, at]: those up to at, less those up to at - interval
      long inInterval = upTo(sorted, at) - upTo(sorted, at - intervalMicros);
      if (inInterval < count) {
        unjustified.add(at);
      }
    }
    assertThat(unjustified).as("refusals by Redis with fewer than %d admissions in the interval before", count)
        .isEmpty();
  }

  /** How many of {@code sorted} are at most {@code time}. */
  private static int upTo(long[] sorted, long time) {
    int low = 0;
    int high = sorted.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (sorted[middle] <= time) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /**
   * Two exact cluster rules on one resource, decided in one script call: by Redis time, each holds
   * its bound over both instances, and Redis ran exactly one ZADD per rule per admitted call (a
   * permit taken from the first rule when the second refused would be one ZADD more).
   */
  @Test
  void twoRulesOfOneResourceAreDecidedAllOrNothingUnderThreadsOnTwoInstances() throws Exception {
    Map<String, String> second = Map.of("weir.flow[1].resource", StampingApplication.RESOURCE,
        "weir.flow[1].count", "12", "weir.flow[1].interval", "1000ms", "weir.flow[1].exact", "true",
        "weir.flow[1].cluster-mode", "true");
    ConfigurableApplicationContext a = instance("exact-two", 5, Duration.ofMillis(200), second);
    ConfigurableApplicationContext b = instance("exact-two", 5, Duration.ofMillis(200), second);
    StampingApplication.Guarded[] targets = {guarded(a), guarded(b)};
    AtomicLong passed = new AtomicLong();
    List<Throwable> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
    // Loaded beforehand, so that no EVALSHA meets NOSCRIPT (then each of several concurrent first
    // calls would be sent again with EVAL) and every script call below is one decision.
    try (java.io.InputStream in = getClass().getResourceAsStream("/dev/weir/spring/redis/several-limits.lua")) {
      redis.call("SCRIPT", "LOAD", new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    }
    assertThat(redis.call("CONFIG", "RESETSTAT")).isEqualTo("OK");
    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      StampingApplication.Guarded target = targets[t % 2];
      Thread thread = new Thread(() -> {
        while (System.nanoTime() - end < 0) { // ends at the deadline: each call is bounded by the 2 s timeout
          try {
            target.call();
            passed.incrementAndGet();
          } catch (FlowException e) {
            // refused by one of the two rules
          } catch (RuntimeException | Error e) {
            unexpected.add(e);
          }
        }
      }, "exact-two-" + t);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join(30_000);
      assertThat(thread.isAlive()).isFalse();
    }
    long zadds = commandCalls("zadd");
    long scripts = commandCalls("evalsha") + commandCalls("eval");

    List<Long> stamps = new ArrayList<>(stamps(a));
    stamps.addAll(stamps(b));
    System.out.printf("[exact-two] passed %d, stamps %d, most in 200 ms %d, in 1 s %d; ZADD %d, scripts %d%n",
        passed.get(), stamps.size(), Spans.mostInAnySpan(stamps, 200_000), Spans.mostInAnySpan(stamps, 1_000_000),
        zadds, scripts);
    assertThat(unexpected).isEmpty();
    assertThat(status(a).fallbacks() + status(b).fallbacks()).isZero();
    assertThat((long) stamps.size()).isEqualTo(passed.get());
    assertThat(Spans.mostInAnySpan(stamps, 200_000)).isLessThanOrEqualTo(5);
    assertThat(Spans.mostInAnySpan(stamps, 1_000_000)).isEqualTo(12);
    assertThat(zadds).as("one ZADD per rule per admitted call").isEqualTo(2 * passed.get());
    long decisions = status(a).admitted() + status(a).blocked() + status(b).admitted() + status(b).blocked();
    assertThat(scripts).as("one script call per decision, for both rules").isEqualTo(decisions);
  }

  @Test
  void aRefusalCarriesTheRetryAfterOfTheOldestAdmissionAndTheKeyIsASortedSet() {
    ConfigurableApplicationContext context = instance("exact-retry", 2, Duration.ofSeconds(10));
    StampingApplication.Guarded guarded = guarded(context);
    guarded.call();
    guarded.call();
    assertThatThrownBy(guarded::call).isInstanceOfSatisfying(FlowException.class,
        e -> assertThat(e.retryAfter()).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10)));
    String key = "exact-retry:{stamped}:exact:all:10000ms";
    assertThat(redis.call("TYPE", key)).isEqualTo("zset");
    assertThat(redis.call("ZCARD", key)).isEqualTo(2L);
    assertThat(context.getBean(RedisClusterClient.class)
        .key(new dev.weir.cluster.ClusterLimit("stamped", "all", 2, Duration.ofSeconds(10), true))).isEqualTo(key);
  }

  @Test
  void anExactClusterCountAboveTheMaximumStopsTheStartNamingTheProperty() {
    assertThatThrownBy(() -> instance("exact-max", 10_001, Duration.ofSeconds(1)))
        .hasRootCauseInstanceOf(InvalidWeirConfigurationException.class)
        .rootCause().hasMessageContaining("weir.flow[0].count").hasMessageContaining("10000");
  }

  private ConfigurableApplicationContext instance(String prefix, int count, Duration interval) {
    return instance(prefix, count, interval, Map.of());
  }

  private ConfigurableApplicationContext instance(String prefix, int count, Duration interval, Map<String, String> more) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("weir.cluster.timeout", "2s");
    properties.put("weir.cluster.fallback", "deny");
    properties.put("weir.flow[0].resource", StampingApplication.RESOURCE);
    properties.put("weir.flow[0].count", Integer.toString(count));
    properties.put("weir.flow[0].interval", interval.toMillis() + "ms");
    properties.put("weir.flow[0].exact", "true");
    properties.put("weir.flow[0].cluster-mode", "true");
    properties.putAll(more);
    return instance(StampingApplication.class, prefix, properties);
  }

  private static long commandCalls(String command) {
    String info = (String) redis.call("INFO", "commandstats");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        return Long.parseLong(line.substring(("cmdstat_" + command + ":calls=").length(), line.indexOf(',')));
      }
    }
    return 0;
  }

  private static StampingApplication.Guarded guarded(ConfigurableApplicationContext context) {
    return context.getBean(StampingApplication.Guarded.class);
  }

  private static List<Long> stamps(ConfigurableApplicationContext context) {
    return List.copyOf(context.getBean(StampingApplication.Stamps.class).admitted);
  }

  private static ClusterStatus status(ConfigurableApplicationContext context) {
    ClusterStatus status = context.getBean(Weir.class).cluster();
    assertThat(status).isNotNull();
    return status;
  }
}
