package dev.weir.spring.fleet;

import static dev.weir.spring.fleet.Fleet.await;
import static dev.weir.spring.fleet.Fleet.flowCount;
import static dev.weir.spring.fleet.Fleet.json;
import static dev.weir.spring.fleet.Fleet.post;
import static dev.weir.spring.fleet.Fleet.sync;
import static dev.weir.spring.fleet.Fleet.writeFlow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.RedisSentinels;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The rules store through Redis Sentinel: a master, a replica and three sentinels owned by the
 * test ({@link RedisSentinels}). The master is killed; while no master answers a write is 503 and
 * every instance keeps its rules; after the promotion writes go on and every instance converges on
 * the new master's current version.
 */
class FleetSentinelFailoverTests {

  private RedisSentinels sentinels;
  private Fleet fleet;

  @BeforeEach
  void start() {
    sentinels = RedisSentinels.start();
    fleet = new Fleet();
  }

  @AfterEach
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (sentinels != null) {
      sentinels.close();
    }
  }

  @Test
  void theMasterKilledLeavesEveryInstanceOnItsRulesAndAllConvergeAfterThePromotion() {
    Map<String, String> viaSentinels = Map.of("spring.data.redis.sentinel.master", RedisSentinels.MASTER_NAME,
        "spring.data.redis.sentinel.nodes", sentinels.nodes());
    ConfigurableApplicationContext one = fleet.start(sentinels.master().port(), false, viaSentinels);
    ConfigurableApplicationContext other = fleet.start(sentinels.master().port(), true, viaSentinels);
    await("both reach the store", () -> sync(one).reachable() && sync(other).reachable());
    long v1 = writeFlow(one, "failover", 5);
    fleet.awaitAll(v1);
    await("the replica has version " + v1, () -> String.valueOf(v1).equals(
        String.valueOf(sentinels.replica().call("GET", "fleet:{rules}:version"))));

    sentinels.master().kill();
    await("an instance sees the master gone", () -> !sync(other).reachable());
    assertThat(flowCount(one, "failover")).isEqualTo(5);
    assertThat(flowCount(other, "failover")).isEqualTo(5);
    await("the sentinels promote the replica", () -> sentinels.masterPort() == sentinels.replica().port());

    // Writes answer 503 until the instance reconnected to the new master, then go through.
    long[] written = new long[1];
    await("a write goes through after the promotion", () -> {
      HttpResponse<String> answer = post(other, "/actuator/weir/failover", "{\"flow\": [{\"count\": 6}]}");
      if (answer.statusCode() == 200) {
        written[0] = ((Number) json(answer).get("version")).longValue();
        return true;
      }
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
      Fleet.sleep(100);
      return false;
    });
    assertThat(written[0]).isEqualTo(v1 + 1);
    fleet.awaitAll(written[0]);
    assertThat(flowCount(one, "failover")).isEqualTo(6);
    assertThat(flowCount(other, "failover")).isEqualTo(6);
  }
}
