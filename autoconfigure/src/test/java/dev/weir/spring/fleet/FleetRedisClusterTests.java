package dev.weir.spring.fleet;

import static dev.weir.spring.fleet.Fleet.await;
import static dev.weir.spring.fleet.Fleet.flowCount;
import static dev.weir.spring.fleet.Fleet.get;
import static dev.weir.spring.fleet.Fleet.json;
import static dev.weir.spring.fleet.Fleet.post;
import static dev.weir.spring.fleet.Fleet.sync;
import static dev.weir.spring.fleet.Fleet.writeFlow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.test.RedisClusterNodes;
import dev.weir.spring.test.RedisServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The rules store on a Redis Cluster of three masters owned by the test: every key of the store
 * shares the hash tag {@code {rules}}, so the write script's keys live on one slot, and writes,
 * history, rollback, heartbeats and pub/sub work as on one Redis.
 */
class FleetRedisClusterTests {

  @TempDir
  static Path dir;

  private static final List<RedisServer> nodes = new ArrayList<>();
  private final Fleet fleet = new Fleet();

  @BeforeAll
  static void startCluster() throws InterruptedException {
    nodes.addAll(RedisClusterNodes.start(dir));
  }

  @AfterAll
  static void stopCluster() {
    nodes.forEach(RedisServer::close);
  }

  @AfterEach
  void stopFleet() {
    fleet.close();
  }

  @Test
  @SuppressWarnings("unchecked")
  void writesHistoryRollbackAndHeartbeatsWorkOnOneSlot() {
    Map<String, String> cluster = Map.of("spring.data.redis.cluster.nodes", nodes.stream()
        .map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(",")));
    ConfigurableApplicationContext one = fleet.start(nodes.get(0).port(), false, cluster);
    ConfigurableApplicationContext other = fleet.start(nodes.get(0).port(), true, cluster);
    await("both reach the store", () -> sync(one).reachable() && sync(other).reachable());
    long v1 = writeFlow(one, "clustered", 3);
    long v2 = writeFlow(other, "clustered", 4);
    fleet.awaitAll(v2);
    assertThat(flowCount(one, "clustered")).isEqualTo(4);
    assertThat(post(other, "/actuator/weir/fleet/rollback/" + v1, "").statusCode()).isEqualTo(200);
    fleet.awaitAll(v2 + 1);
    assertThat(flowCount(other, "clustered")).isEqualTo(3);
    List<Map<String, Object>> history = (List<Map<String, Object>>) json(get(one, "/actuator/weir/fleet/history"))
        .get("history");
    assertThat(history).extracting(entry -> ((Number) entry.get("version")).longValue())
        .containsExactly(v2 + 1, v2, v1);
    await("both heartbeats are listed", () -> ((List<?>) json(get(one, "/actuator/weir/fleet")).get("instances"))
        .size() == 2);
    long slot = (Long) nodes.get(0).call("CLUSTER", "KEYSLOT", "rules");
    for (String key : List.of("fleet:{rules}:version", "fleet:{rules}:history", "fleet:{rules}:v:1",
        "fleet:{rules}:instances", "fleet:{rules}:i:" + sync(one).id())) {
      assertThat((Long) nodes.get(0).call("CLUSTER", "KEYSLOT", key)).as(key).isEqualTo(slot);
    }
  }

  @Test
  void theFleetsTrafficIsPublishedAndSummedOnOneSlot() {
    Map<String, String> cluster = Map.of("spring.data.redis.cluster.nodes", nodes.stream()
        .map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(",")));
    ConfigurableApplicationContext one = fleet.start(nodes.get(0).port(), false, cluster);
    ConfigurableApplicationContext other = fleet.start(nodes.get(0).port(), true, cluster);
    for (int i = 0; i < 2; i++) {
      one.getBean(Weir.class).entry("traffic.clustered").close();
    }
    for (int i = 0; i < 3; i++) {
      other.getBean(Weir.class).entry("traffic.clustered").close();
    }
    FleetTrafficRedis traffic = one.getBean(FleetTrafficRedis.class);
    await("both instances' calls in the sum", () -> {
      FleetTrafficRedis.Reading summed = traffic.read().resources().get("traffic.clustered");
      return summed != null && summed.totalPassed() == 5 && summed.totalSucceeded() == 5;
    });
    assertThat(traffic.read().instances()).isEqualTo(2);
    long slot = (Long) nodes.get(0).call("CLUSTER", "KEYSLOT", "traffic");
    for (String key : List.of(traffic.instancesKey(),
        traffic.instanceKey(one.getBean(FleetTrafficPublisher.class).id()),
        traffic.instanceKey(other.getBean(FleetTrafficPublisher.class).id()))) {
      assertThat((Long) nodes.get(0).call("CLUSTER", "KEYSLOT", key)).as(key).isEqualTo(slot);
    }
  }
}
