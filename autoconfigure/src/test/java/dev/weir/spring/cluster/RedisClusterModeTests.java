package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.ClusterStatus;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.spring.redis.RedisClusterClient;
import dev.weir.spring.test.RedisClusterNodes;
import dev.weir.spring.test.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Cluster mode on a real Redis Cluster of three masters that the test builds (slots assigned with
 * {@code CLUSTER ADDSLOTSRANGE}, nodes joined with {@code CLUSTER MEET}): each rule's key lives on
 * the node that owns its hash tag's slot, Lettuce's cluster client routes every script there, and
 * each node loads the script on its first {@code NOSCRIPT}.
 */
class RedisClusterModeTests {

  private static final int RESOURCES = 6;

  @TempDir
  static Path dir;

  private static final List<RedisServer> nodes = new ArrayList<>();

  @BeforeAll
  static void startCluster() throws InterruptedException {
    nodes.addAll(RedisClusterNodes.start(dir));
  }

  @AfterAll
  static void stopCluster() {
    nodes.forEach(RedisServer::close);
  }

  /**
   * For each rule shape: one bucketed rule ({@code window}), one exact rule ({@code exact}), or the
   * bucketed rule and an exact per-minute one decided together by one script ({@code two}, whose
   * keys share the resource's slot).
   */
  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "exact", "two"})
  void eachRuleCountsOnTheNodeThatOwnsItsHashTag(String shape) throws InterruptedException {
    List<String> properties = new ArrayList<>(List.of("--weir.cluster.key-prefix=" + shape,
        "--spring.data.redis.cluster.nodes=" + nodes.stream().map(node -> "127.0.0.1:" + node.port())
            .collect(Collectors.joining(",")),
        "--weir.cluster.enabled=true", "--weir.cluster.timeout=2s", "--weir.cluster.fallback=deny"));
    for (int i = 0; i < RESOURCES; i++) {
      properties.add("--weir.flow[" + i + "].resource=resource-" + i);
      properties.add("--weir.flow[" + i + "].count=3");
      properties.add("--weir.flow[" + i + "].interval=10s");
      properties.add("--weir.flow[" + i + "].cluster-mode=true");
      properties.add("--weir.flow[" + i + "].exact=" + shape.equals("exact"));
      if (shape.equals("two")) {
        int j = RESOURCES + i;
        properties.add("--weir.flow[" + j + "].resource=resource-" + i);
        properties.add("--weir.flow[" + j + "].count=10");
        properties.add("--weir.flow[" + j + "].interval=60s");
        properties.add("--weir.flow[" + j + "].exact=true");
        properties.add("--weir.flow[" + j + "].cluster-mode=true");
      }
    }
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ClusterSharingApplication.class)
        .web(WebApplicationType.NONE).run(properties.toArray(String[]::new))) {
      RedisClusterClient client = context.getBean(RedisClusterClient.class);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!client.connected() && System.nanoTime() < deadline) {
        Thread.sleep(5); // the connection opens on real sockets in the background
      }
      assertThat(client.connected()).isTrue();
      assertThat(client.description()).startsWith("redis cluster");
      Weir weir = context.getBean(Weir.class);

      Set<Integer> owners = new HashSet<>();
      for (int i = 0; i < RESOURCES; i++) {
        String resource = "resource-" + i;
        int admitted = 0;
        for (int call = 0; call < 5; call++) {
          try (Entry entry = weir.entry(resource)) {
            admitted++;
          } catch (BlockException e) {
            // the 4th and 5th
          }
        }
        assertThat(admitted).as(resource).isEqualTo(3);

        List<String> keys = switch (shape) {
          case "exact" -> List.of(shape + ":{" + resource + "}:exact:all:10000ms");
          case "two" -> List.of(shape + ":{" + resource + "}:flow:all:10000ms", shape + ":{" + resource + "}:exact:all:60000ms");
          default -> List.of(shape + ":{" + resource + "}:flow:all:10000ms");
        };
        for (String key : keys) {
        long slot = (Long) nodes.get(0).call("CLUSTER", "KEYSLOT", key);
        assertThat(slot).isEqualTo((Long) nodes.get(0).call("CLUSTER", "KEYSLOT", resource)); // the tag decides
        int owner = slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
        owners.add(owner);
        for (int node = 0; node < 3; node++) {
          RedisServer server = nodes.get(node);
          if (node == owner) {
            assertThat(server.call("EXISTS", key)).as(key + " on its owner").isEqualTo(1L);
          } else {
            assertThatThrownBy(() -> server.call("EXISTS", key)).as(key + " elsewhere")
                .hasMessageStartingWith("MOVED " + slot + " ");
          }
        }
        }
      }
      assertThat(owners).as("the six keys are spread over the nodes").hasSizeGreaterThan(1);
      ClusterStatus status = weir.cluster();
      assertThat(status.fallbacks()).isZero();
      assertThat(status.admitted()).isEqualTo(3L * RESOURCES);
      assertThat(status.blocked()).isEqualTo(2L * RESOURCES);
    }
  }

  /** Per-key counters: the key is part of the hash tag, so the keys of one resource spread over the masters. */
  @Test
  void theKeysOfOneResourceSpreadOverTheMasters() throws Exception {
    String[] arguments = {"--spring.data.redis.cluster.nodes=" + nodes.stream().map(node -> "127.0.0.1:" + node.port())
        .collect(Collectors.joining(",")), "--weir.cluster.enabled=true", "--weir.cluster.key-prefix=pk"};
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ClusterSharingApplication.class)
        .web(WebApplicationType.NONE).run(arguments)) {
      RedisClusterClient client = context.getBean(RedisClusterClient.class);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!client.connected() && System.nanoTime() < deadline) {
        Thread.sleep(5); // the connection opens on real sockets in the background
      }
      Set<Integer> owners = new HashSet<>();
      for (int k = 0; k < 30; k++) {
        dev.weir.cluster.ClusterKeyLimit limit = new dev.weir.cluster.ClusterKeyLimit("api", "param=0,10000ms", "key" + k,
            2, Duration.ofSeconds(10), 0);
        dev.weir.cluster.ClusterCounter counter = client.keyCounter(limit);
        assertThat(counter.acquire(1).get(5, java.util.concurrent.TimeUnit.SECONDS).admitted()).isTrue();
        assertThat(counter.acquire(1).get(5, java.util.concurrent.TimeUnit.SECONDS).admitted()).isTrue();
        assertThat(counter.acquire(1).get(5, java.util.concurrent.TimeUnit.SECONDS).admitted()).isFalse();
        String key = client.key(limit);
        long slot = (Long) nodes.get(0).call("CLUSTER", "KEYSLOT", key);
        int owner = slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
        owners.add(owner);
        assertThat(nodes.get(owner).call("EXISTS", key)).as(key + " on its owner").isEqualTo(1L);
      }
      assertThat(owners).as("30 keys of one resource on every master").hasSize(3);
    }
  }

  /**
   * Which resource names the multi-key scripts survive on Redis Cluster, with leases (a lease's
   * script touches the limit's key, the lease's receipt, the demands and the instance's leases): a
   * brace anywhere in the name only shortens the hash tag, alike for every key of the resource, so
   * they share a slot; a name beginning with <code>}</code> makes the tag empty, Redis Cluster hashes
   * each key whole, and the script fails with CROSSSLOT (every lease round trip falls back). That is
   * the one kind of name the rule check refuses for cluster-mode rules ({@code ClusterResourceNameTests});
   * here the engine is built without it, on the Java API.
   */
  @ParameterizedTest(name = "resource: {0}")
  @ValueSource(strings = {"or}ders", "{orders}", "orders}", "{}orders", "}orders"})
  void aLeasedResourceSharesOneSlotUnlessItsNameBeginsWithAClosingBrace(String resource) {
    org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory factory =
        new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(
            new org.springframework.data.redis.connection.RedisClusterConfiguration(
                nodes.stream().map(node -> "127.0.0.1:" + node.port()).toList()));
    factory.afterPropertiesSet();
    factory.start();
    RedisClusterClient client = new RedisClusterClient(factory, "names", false, true);
    try {
      ClusterFaults.await("the Redis client connects", client::connected);
      dev.weir.rule.FlowRule rule = dev.weir.rule.FlowRule.builder(resource).count(1000).interval(Duration.ofDays(1))
          .clusterMode(true).build();
      try (Weir weir = Weir.builder().cluster(client, new dev.weir.cluster.ClusterOptions(Duration.ofSeconds(2),
          dev.weir.cluster.ClusterFallback.DENY, 1000, Duration.ofMillis(200), 64, true))
          .rules(dev.weir.rule.RuleSet.of(rule)).build()) {
        for (int call = 0; call < 20; call++) { // the 8th within a lease's validity (10 s) turns the limit hot
          Entry entry = weir.tryEntry(resource, dev.weir.EntryType.IN, 1);
          if (entry != null) {
            entry.close();
          }
        }
        ClusterStatus status = weir.cluster();
        assertThat(status.leaseRequests()).as("leased").isPositive();
        if (resource.startsWith("}")) {
          assertThat(status.fallbacks()).as("the lease scripts failed").isPositive();
          assertThat(status.lastFailure()).contains("CROSSSLOT");
        } else {
          assertThat(status.fallbacks()).as("no script failed").isZero();
          assertThat(status.admitted()).isEqualTo(20);
        }
      }
    } finally {
      client.close();
      factory.destroy();
    }
  }
}
