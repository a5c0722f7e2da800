package dev.weir.spring.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.spring.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The fleet's traffic: three instances, each its own Spring context with its own engine (on a
 * driven ticker, so that its last second holds exactly the calls the test made) and Lettuce
 * connection, publishing to one real {@code redis-server} that the test owns; their sum, a dead
 * instance dropping out after the TTL, hostile keys, the cap on resources and the cost.
 */
class FleetTrafficTests {

  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private static RedisServer redis;

  private final String prefix = "traffic" + PREFIXES.incrementAndGet();

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  @AfterEach
  void closeInstances() {
    instances.forEach(ConfigurableApplicationContext::close);
    instances.clear();
  }

  @Test
  void theViewSumsTheKnownTrafficOfThreeInstancesAndLosesAStoppedOne() throws InterruptedException {
    ConfigurableApplicationContext a = instance();
    ConfigurableApplicationContext b = instance();
    ConfigurableApplicationContext c = instance();
    // a: 8 attempts at 5 a second: 5 admitted (3 complete, 1 fails, 1 stays inside), 3 refused.
    Runnable inside = drive(a, 8, 1, 1);
    // b: 4 attempts: all admitted and completed.
    drive(b, 4, 0, 0);
    // c: 10 attempts: 5 admitted and completed, 5 refused.
    drive(c, 10, 0, 0);
    FleetTraffic traffic = a.getBean(FleetTraffic.class);

    // No call to publish: each instance's own thread publishes within a second.
    Map<String, Object> expected = qps(14, 8, 12, 1, 1);
    await("the fleet's sum of the three instances", () -> expected.equals(traffic.summed().get("fleet.a")));
    FleetTrafficRedis.Sum sum = a.getBean(FleetTrafficRedis.class).read();
    assertThat(sum.instances()).isEqualTo(3);
    assertThat(sum.skipped()).isZero();
    assertThat(sum.resources().get("fleet.a")).isEqualTo(new FleetTrafficRedis.Reading(14, 8, 12, 1, 1, 14, 8, 12, 1));
    // Every instance answers the same sum.
    assertThat(b.getBean(FleetTraffic.class).summed()).isEqualTo(traffic.summed());

    String stopped = c.getBean(FleetTrafficPublisher.class).id();
    inside.run();
    c.close();
    await("the stopped instance leaves the sum, the completed call shows",
        () -> qps(9, 3, 8, 1, 0).equals(traffic.summed().get("fleet.a")));
    FleetTrafficRedis store = a.getBean(FleetTrafficRedis.class);
    assertThat(redis.call("EXISTS", store.instanceKey(stopped))).as("removed when it stopped").isEqualTo(0L);
    assertThat(store.read().instances()).isEqualTo(2);
  }

  @Test
  void aDeadInstanceDropsOutAfterItsTtlAndItsKeysExpire() throws InterruptedException {
    ConfigurableApplicationContext a = instance();
    drive(a, 3, 0, 0);
    FleetTrafficRedis store = a.getBean(FleetTrafficRedis.class);
    await("the live instance's reading", () -> qps(3, 0, 3, 0, 0).equals(store.summed().get("fleet.a")));

    // An instance that published once and died: a real engine and publisher, never stopped.
    try (Weir dead = Weir.builder().ticker(new dev.weir.spring.test.ManualTicker()).build()) {
      for (int i = 0; i < 2; i++) {
        dead.entry("fleet.a").close();
      }
      new FleetTrafficPublisher(dead, store, "dead-1").publish();
    }
    assertThat(store.summed().get("fleet.a")).isEqualTo(qps(5, 0, 5, 0, 0));
    assertThat(store.read().instances()).isEqualTo(2);

    await("the dead instance drops out after the TTL", () -> qps(3, 0, 3, 0, 0).equals(store.summed().get("fleet.a")));
    assertThat(redis.call("EXISTS", store.instanceKey("dead-1"))).isEqualTo(0L);
    assertThat(store.read().instances()).isEqualTo(1);
  }

  @Test
  void hostileKeysAreReadBoundedAndNeverThrow() throws InterruptedException {
    ConfigurableApplicationContext a = instance();
    drive(a, 2, 0, 0);
    FleetTrafficRedis store = a.getBean(FleetTrafficRedis.class);
    await("the live instance's reading", () -> qps(2, 0, 2, 0, 0).equals(store.summed().get("fleet.a")));
    String now = Long.toString(redisMillis());

    // A hash of 10^5 fields, live in the set: skipped by its length, never read.
    redis.call("EVAL", "for i = 1, 100000 do redis.call('HSET', KEYS[1], 'r' .. i, '1 1 1 1 1 1 1 1 1') end",
        "1", store.instanceKey("huge"));
    redis.call("ZADD", store.instancesKey(), now, "huge");
    // Garbage values next to one good field.
    redis.call("HSET", store.instanceKey("garbage"),
        "fleet.a", "1 0 1 0 0 1 0 1 0",
        "g1", "abc", "g2", "1 2 3", "g3", "1 2 3 4 5 6 7 8 9 10", "g4", "-1 1 1 1 1 1 1 1 1",
        "g5", "1e300 1 1 1 1 1 1 1 1", "g6", "99999999999999999999 1 1 1 1 1 1 1 1", "g7", "",
        "g8", "1  1 1 1 1 1 1 1 1", "x".repeat(FleetTrafficRedis.MAX_NAME + 1), "1 1 1 1 1 1 1 1 1",
        "", "1 1 1 1 1 1 1 1 1");
    redis.call("ZADD", store.instancesKey(), now, "garbage");
    // An id whose key is no hash, and ids no key stands for.
    redis.call("SET", store.instanceKey("string"), "not a hash");
    redis.call("ZADD", store.instancesKey(), now, "string", now, "gone", now, "{weird}\u0000id");

    assertThatNoException().isThrownBy(store::summed);
    FleetTrafficRedis.Sum sum = store.read();
    assertThat(sum.resources()).containsOnlyKeys("fleet.a");
    assertThat(sum.skipped()).as("the huge hash and the string").isEqualTo(2);
    assertThat(sum.resources().get("fleet.a").passQps()).isEqualTo(3);
    // Every second of a live instance still publishes (the set is trimmed, never the others' keys).
    assertThat(a.getBean(FleetTrafficPublisher.class).isRunning()).isTrue();

    // 205 instances of 100 resources: at most MAX_FIELDS_READ fields are read, the rest skipped.
    Map<String, FleetTrafficRedis.Reading> hundred = new LinkedHashMap<>();
    for (int r = 0; r < 100; r++) {
      hundred.put("bulk." + r, new FleetTrafficRedis.Reading(1, 0, 1, 0, 0, 1, 0, 1, 0));
    }
    for (int i = 0; i < 205; i++) {
      store.publish("bulk-" + i, hundred);
    }
    FleetTrafficRedis.Sum bulk = store.read();
    long bulkRead = bulk.resources().get("bulk.0").passQps();
    assertThat(bulkRead * 100).as("fields read").isLessThanOrEqualTo(FleetTrafficRedis.MAX_FIELDS_READ);
    assertThat(bulkRead).isGreaterThanOrEqualTo(195);
    assertThat(bulk.skipped()).as("the huge hash, the string and the bulk beyond the budget")
        .isEqualTo(2 + 205 - (int) bulkRead);
  }

  @Test
  void anInstanceWithManyResourcesPublishesTheBusiestHundred() {
    ConfigurableApplicationContext a = instance();
    Weir weir = a.getBean(Weir.class);
    for (int r = 0; r < 150; r++) {
      for (int i = 0; i < 1 + r % 3; i++) {
        weir.entry(String.format("many.%03d", r)).close();
      }
    }
    FleetTrafficPublisher publisher = a.getBean(FleetTrafficPublisher.class);
    publisher.publish();
    FleetTrafficRedis store = a.getBean(FleetTrafficRedis.class);
    Map<String, FleetTrafficRedis.Reading> published = store.read().resources();
    assertThat(published).hasSize(FleetTrafficRedis.MAX_RESOURCES);
    // 50 resources had 3 calls, 50 had 2: all of those, none of the 50 with 1.
    assertThat(published.values()).allSatisfy(reading -> assertThat(reading.passQps()).isGreaterThanOrEqualTo(2));
    assertThat(redis.call("HLEN", store.instanceKey(publisher.id()))).isEqualTo(100L);
  }

  /**
   * The cost, counted by the server: one script call a second per instance, and the bytes a
   * resource takes in Redis ({@code MEMORY USAGE}). The figures are in docs/fleet.md.
   */
  @Test
  void eachPublicationIsOneCommandAndAResourceTakesAboutAHundredBytes() {
    ConfigurableApplicationContext a = instance();
    FleetTrafficPublisher publisher = a.getBean(FleetTrafficPublisher.class);
    FleetTrafficRedis store = a.getBean(FleetTrafficRedis.class);
    a.getBean(FleetTrafficPublisher.class).stop(); // count only the publications made here
    Weir weir = a.getBean(Weir.class);
    Map<Integer, Long> bytes = new LinkedHashMap<>();
    for (int resources : new int[] {1, 10, 100}) {
      weir.reset();
      for (int r = 0; r < resources; r++) {
        for (int i = 0; i < 1000; i++) {
          weir.entry("orders.checkout." + r).close();
        }
      }
      publisher.publish();
      bytes.put(resources, (Long) redis.call("MEMORY", "USAGE", store.instanceKey(publisher.id()), "SAMPLES", "0"));
    }
    redis.call("CONFIG", "RESETSTAT");
    for (int i = 0; i < 20; i++) {
      publisher.publish();
    }
    String stats = (String) redis.call("INFO", "commandstats");
    System.out.println("fleet traffic cost: MEMORY USAGE by resources " + bytes + "; commandstats after 20"
        + " publications of 100 resources:\n" + stats);
    // Every publication is one EVALSHA (the rules store's heartbeat, once a second, is an EVAL of its own).
    assertThat(stats).contains("cmdstat_evalsha:calls=20,");
    long perResource = (bytes.get(100) - bytes.get(10)) / 90;
    assertThat(perResource).as("bytes per resource").isBetween(40L, 200L);

    // Reading the sum of a fleet of 40 instances of 100 resources each: one script call.
    Map<String, FleetTrafficRedis.Reading> reading = publisher.reading();
    for (int i = 1; i < 40; i++) {
      store.publish("other-" + i, reading);
    }
    redis.call("CONFIG", "RESETSTAT");
    for (int i = 0; i < 20; i++) {
      FleetTrafficRedis.Sum sum = store.read();
      assertThat(sum.instances()).isEqualTo(40);
      assertThat(sum.resources()).hasSize(100);
    }
    String reads = (String) redis.call("INFO", "commandstats");
    System.out.println("fleet traffic cost: commandstats after 20 sums of 40 instances of 100 resources:\n" + reads);
    assertThat(reads).contains("cmdstat_evalsha:calls=20,");
  }

  private ConfigurableApplicationContext instance() {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("spring.main.banner-mode", "off");
    all.put("spring.data.redis.host", redis.host());
    all.put("spring.data.redis.port", Integer.toString(redis.port()));
    all.put("weir.cluster.enabled", "true");
    all.put("weir.cluster.key-prefix", prefix);
    all.put("weir.rules-store.enabled", "true");
    all.put("weir.flow[0].resource", "fleet.a");
    all.put("weir.flow[0].count", "5");
    ConfigurableApplicationContext context = new SpringApplicationBuilder(FleetTrafficApplication.class)
        .web(WebApplicationType.NONE).properties(all).run();
    instances.add(context);
    return context;
  }

  /**
   * Makes {@code attempts} calls of {@code fleet.a} (5 a second are admitted): with {@code staying}
   * (0 or 1), the first stays inside, on a thread of its own, until the returned action ends it; of
   * the other admitted calls, the first {@code failing} complete with an error.
   */
  private static Runnable drive(ConfigurableApplicationContext instance, int attempts, int failing, int staying)
      throws InterruptedException {
    Weir weir = instance.getBean(Weir.class);
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = null;
    if (staying > 0) {
      holder = new Thread(() -> {
        try (Entry entry = weir.entry("fleet.a")) {
          entered.countDown();
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      holder.start();
      entered.await();
    }
    int failed = 0;
    for (int i = staying; i < attempts; i++) {
      Entry entry = weir.tryEntry("fleet.a", EntryType.IN, 1);
      if (entry != null) {
        if (failed < failing) {
          entry.recordError(new IllegalStateException("failed"));
          failed++;
        }
        entry.close();
      }
    }
    Thread held = holder;
    return () -> {
      release.countDown();
      if (held != null) {
        try {
          held.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  private static Map<String, Object> qps(long pass, long block, long success, long exception, long active) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("passQps", pass);
    out.put("blockQps", block);
    out.put("successQps", success);
    out.put("exceptionQps", exception);
    out.put("activeCalls", active);
    return out;
  }

  private static long redisMillis() {
    Object time = redis.call("TIME");
    List<?> parts = (List<?>) time;
    return Long.parseLong(text(parts.get(0))) * 1000 + Long.parseLong(text(parts.get(1))) / 1000;
  }

  private static String text(Object value) {
    return value instanceof byte[] raw ? new String(raw, java.nio.charset.StandardCharsets.UTF_8) : value.toString();
  }

  /** Waits up to 15 s for {@code condition}; the TTL is 5 s, a publication comes every second. */
  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }
}
