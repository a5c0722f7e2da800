package dev.weir.spring.fleet;

import static dev.weir.spring.fleet.Fleet.API;
import static dev.weir.spring.fleet.Fleet.await;
import static dev.weir.spring.fleet.Fleet.flowCount;
import static dev.weir.spring.fleet.Fleet.get;
import static dev.weir.spring.fleet.Fleet.json;
import static dev.weir.spring.fleet.Fleet.post;
import static dev.weir.spring.fleet.Fleet.sync;
import static dev.weir.spring.fleet.Fleet.writeFlow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.RedisServer;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The rules store's Redis killed, frozen, flushed, or written by hand with what Weir never writes;
 * each test owns its {@code redis-server} and two instances. Whatever happens, every instance
 * keeps the rules it applies, no write is reported done that is not stored, and once Redis answers
 * again every instance converges on the store's current version.
 */
@ExtendWith(OutputCaptureExtension.class)
class FleetFaultTests {

  private RedisServer redis;
  private Fleet fleet;

  @BeforeEach
  void startRedis() {
    redis = RedisServer.start();
    fleet = new Fleet();
  }

  @AfterEach
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private ConfigurableApplicationContext[] two() {
    ConfigurableApplicationContext one = fleet.start(redis.port(), false);
    ConfigurableApplicationContext other = fleet.start(redis.port(), true);
    await("both reach the store", () -> sync(one).reachable() && sync(other).reachable());
    return new ConfigurableApplicationContext[] {one, other};
  }

  private long storeVersion() {
    Object version = redis.call("GET", "fleet:{rules}:version");
    return version == null ? 0 : Long.parseLong(version.toString());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> storeHealth(ConfigurableApplicationContext context) {
    Map<String, Object> health = json(get(context, "/actuator/health"));
    Map<String, Object> weir = (Map<String, Object>) ((Map<String, Object>) health.get("components")).get("weir");
    assertThat(weir.get("status")).as("the weir health never goes DOWN").isEqualTo("UP");
    return (Map<String, Object>) ((Map<String, Object>) weir.get("details")).get("rulesStore");
  }

  @Test
  void redisKilledLeavesEveryInstanceOnItsRulesAndAWriteIs503ThenAllCatchUp() {
    ConfigurableApplicationContext[] instances = two();
    long v1 = writeFlow(instances[0], "kept", 7);
    writeFlow(instances[1], API, 50);
    fleet.awaitAll(v1 + 1);

    redis.kill();
    await("both see Redis gone", () -> !sync(instances[0]).reachable() && !sync(instances[1]).reachable());
    for (ConfigurableApplicationContext instance : instances) {
      HttpResponse<String> refused = post(instance, "/actuator/weir/kept", "{\"flow\": [{\"count\": 1}]}");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
      assertThat(refused.body()).contains("nothing changed");
      assertThat(flowCount(instance, "kept")).isEqualTo(7);
      assertThat(flowCount(instance, API)).isEqualTo(50);
      Map<String, Object> health = storeHealth(instance);
      assertThat(health).containsEntry("connected", false).containsKey("unreachableSince");
      assertThat(get(instance, "/actuator/weir/fleet").statusCode()).isEqualTo(503);
    }

    redis.restart(); // a new, empty Redis on the same port
    await("both report the store empty", () -> sync(instances[0]).storeEmpty() && sync(instances[1]).storeEmpty());
    assertThat(storeHealth(instances[1])).containsEntry("connected", true).containsEntry("state", "store empty");
    assertThat(flowCount(instances[1], "kept")).isEqualTo(7);

    // The next write starts the store again from the fleet's rules, above every version seen.
    long next = writeFlow(instances[1], "other", 3);
    assertThat(next).isGreaterThan(v1 + 1);
    fleet.awaitAll(next);
    for (ConfigurableApplicationContext instance : instances) {
      assertThat(flowCount(instance, "kept")).isEqualTo(7);
      assertThat(flowCount(instance, API)).isEqualTo(50);
      assertThat(flowCount(instance, "other")).isEqualTo(3);
    }
  }

  @Test
  void redisFrozenAnswers503WithinTheTimeoutAndEveryInstanceConvergesAfter() {
    ConfigurableApplicationContext[] instances = two();
    long v1 = writeFlow(instances[0], "frozen", 2);
    fleet.awaitAll(v1);
    redis.pause();
    try {
      HttpResponse<String> refused = post(instances[1], "/actuator/weir/frozen", "{\"flow\": [{\"count\": 3}]}");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
      for (ConfigurableApplicationContext instance : instances) {
        assertThat(flowCount(instance, "frozen")).isEqualTo(2);
      }
    } finally {
      redis.resume();
    }
    // The write sent before the freeze may run once Redis resumes (the 503 says so): whichever
    // version is current then, every instance converges on it.
    await("both answer again", () -> sync(instances[0]).reachable() && sync(instances[1]).reachable());
    long current = storeVersion();
    fleet.awaitAll(current);
    long next = writeFlow(instances[0], "frozen", 4);
    fleet.awaitAll(next);
    assertThat(flowCount(instances[1], "frozen")).isEqualTo(4);
  }

  @Test
  void aFlushallLeavesTheRulesAndIsReportedAsStoreEmpty() {
    ConfigurableApplicationContext[] instances = two();
    long v1 = writeFlow(instances[0], "flushed", 11);
    fleet.awaitAll(v1);
    redis.call("FLUSHALL");
    await("both report the store empty", () -> sync(instances[0]).storeEmpty() && sync(instances[1]).storeEmpty());
    await("the heartbeats say so", () -> {
      List<?> listed = (List<?>) json(get(instances[0], "/actuator/weir/fleet")).get("instances");
      return listed.size() == 2 && listed.stream().allMatch(i -> String.valueOf(((Map<?, ?>) i).get("error"))
          .startsWith("store empty"));
    });
    assertThat(json(get(instances[1], "/actuator/weir/fleet"))).containsEntry("state", "store empty");
    assertThat(storeHealth(instances[0])).containsEntry("state", "store empty")
        .containsEntry("version", (int) v1);
    for (ConfigurableApplicationContext instance : instances) {
      assertThat(flowCount(instance, "flushed")).isEqualTo(11);
    }
    HttpResponse<String> stale = post(instances[1], "/actuator/weir/flushed", "{\"flow\": [{\"count\": 1}]}",
        "If-Match", "\"" + v1 + "\"");
    assertThat(stale.statusCode()).as("the store is empty: version " + v1 + " is not current").isEqualTo(409);
    long next = writeFlow(instances[1], "again", 5);
    assertThat(next).isEqualTo(v1 + 1);
    fleet.awaitAll(next);
    assertThat(flowCount(instances[0], "flushed")).isEqualTo(11);
    assertThat(flowCount(instances[0], "again")).isEqualTo(5);
  }

  /** A version whose document an instance cannot apply: refused there, reported, logged once. */
  @Test
  @SuppressWarnings("unchecked")
  void aBadVersionIsRefusedKeptOutOfForceReportedAndLoggedOnce(CapturedOutput output) {
    ConfigurableApplicationContext[] instances = two();
    long v1 = writeFlow(instances[0], "bad", 6);
    fleet.awaitAll(v1);
    long bad = v1 + 1;
    redis.call("SET", "fleet:{rules}:v:" + bad, "{\"rules\": {\"bad\": {\"flow\": [{\"count\": -5}]}}}");
    redis.call("SET", "fleet:{rules}:version", Long.toString(bad));
    redis.call("PUBLISH", "fleet:{rules}:changed", Long.toString(bad));
    await("both refuse it", () -> sync(instances[0]).error() != null && sync(instances[1]).error() != null);
    await("the heartbeats carry the error", () -> ((List<Map<String, Object>>) json(get(instances[0],
        "/actuator/weir/fleet")).get("instances")).stream()
        .allMatch(i -> String.valueOf(i.get("error")).contains("version " + bad + " refused")));
    Fleet.sleep(4 * FleetSync.POLL.toMillis()); // polls go on; the refusal is not logged again
    for (ConfigurableApplicationContext instance : instances) {
      assertThat(flowCount(instance, "bad")).isEqualTo(6);
      assertThat(sync(instance).appliedVersion()).isEqualTo(v1);
      Map<String, Object> health = storeHealth(instance);
      assertThat((String) health.get("error")).contains("version " + bad + " refused, keeps version " + v1)
          .contains("rules.bad.flow[0].count");
    }
    Matcher logged = Pattern.compile("version " + bad + " refused").matcher(output.getAll());
    int lines = 0;
    while (logged.find()) {
      lines++;
    }
    assertThat(lines).as("logged once per instance").isEqualTo(2);
    // A good version after it is applied, and clears the error.
    long good = writeFlow(instances[1], "bad", 8);
    fleet.awaitAll(good);
    assertThat(sync(instances[0]).error()).isNull();
    assertThat(flowCount(instances[0], "bad")).isEqualTo(8);
  }

  /**
   * What anyone with Redis access may write: a truncated document, a version that is no number, a
   * version going back, a flood of messages, a heartbeat of 10^5 fields and 10^5 fake instances.
   * No instance crashes or stalls: each still applies a good version within the poll after.
   */
  @Test
  @SuppressWarnings("unchecked")
  void hostileKeysNeverStallAnInstance() {
    ConfigurableApplicationContext[] instances = two();
    long v1 = writeFlow(instances[0], "hostile", 1);
    long v2 = writeFlow(instances[0], "hostile", 2);
    fleet.awaitAll(v2);

    // A truncated document.
    redis.call("SET", "fleet:{rules}:v:" + (v2 + 1), "{\"rules\": {\"hostile\": {\"flow\": [{\"cou");
    redis.call("SET", "fleet:{rules}:version", Long.toString(v2 + 1));
    await("both refuse the truncated document", () -> sync(instances[0]).error() != null
        && sync(instances[1]).error() != null);
    assertThat(sync(instances[0]).error()).contains("not JSON");

    // A version that is no number.
    redis.call("SET", "fleet:{rules}:version", "ten");
    await("both report it", () -> sync(instances[0]).garbage() != null && sync(instances[1]).garbage() != null);
    assertThat(post(instances[0], "/actuator/weir/hostile", "{\"flow\": []}").statusCode()).isEqualTo(503);

    // A version going back: the store is the truth, the instances follow it.
    redis.call("SET", "fleet:{rules}:version", Long.toString(v1));
    fleet.awaitAll(v1);
    assertThat(flowCount(instances[1], "hostile")).isEqualTo(1);

    // A flood of messages, a heartbeat hash of 10^5 fields, 10^5 fake instances.
    String id = sync(instances[0]).id();
    redis.call("EVAL", "for i = 1, 100000 do redis.call('HSET', KEYS[1], 'f' .. i, 'x') end "
        + "for i = 1, 100000 do redis.call('ZADD', KEYS[2], '99999999999999', 'fake' .. i) end "
        + "for i = 1, 20000 do redis.call('PUBLISH', KEYS[3], 'look') end return 1", "3",
        "fleet:{rules}:i:" + id, "fleet:{rules}:instances", "fleet:{rules}:changed");
    Map<String, Object> view = json(get(instances[1], "/actuator/weir/fleet"));
    List<Map<String, Object>> listed = (List<Map<String, Object>>) view.get("instances");
    assertThat(listed).hasSizeLessThanOrEqualTo(RulesStore.MAX_INSTANCES);

    // Still following: a good write is applied everywhere.
    redis.call("SET", "fleet:{rules}:version", Long.toString(v2));
    long good = writeFlow(instances[1], "hostile", 9);
    fleet.awaitAll(good);
    assertThat(flowCount(instances[0], "hostile")).isEqualTo(9);
    assertThat(sync(instances[0]).error()).isNull();
  }

  /** An instance started while Redis is down starts on its local rules and applies the store's once Redis answers. */
  @Test
  void anInstanceStartedWithoutRedisStartsOnItsLocalRulesAndCatchesUp() {
    ConfigurableApplicationContext first = fleet.start(redis.port(), false);
    long v1 = writeFlow(first, API, 30);
    fleet.awaitAll(v1);
    redis.kill();
    ConfigurableApplicationContext late = fleet.start(redis.port(), true);
    assertThat(flowCount(late, API)).as("application.yml's rule").isEqualTo(100);
    assertThat(sync(late).reachable()).isFalse();
    assertThat(storeHealth(late)).containsEntry("connected", false);
    redis.restart(); // empty: the first instance's next write starts it again from its rules
    await("both reach the new Redis", () -> sync(first).reachable() && sync(late).reachable());
    long v2 = writeFlow(first, "more", 2);
    fleet.awaitAll(v2);
    assertThat(flowCount(late, API)).as("the store's rule").isEqualTo(30);
    assertThat(flowCount(late, "more")).isEqualTo(2);
  }
}
