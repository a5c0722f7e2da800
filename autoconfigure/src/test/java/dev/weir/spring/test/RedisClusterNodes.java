package dev.weir.spring.test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Cluster of three real {@code redis-server} primaries that a test starts and owns: the
 * 16384 slots split in three ({@code CLUSTER ADDSLOTSRANGE}), the nodes joined with
 * {@code CLUSTER MEET}, and started once every node reports {@code cluster_state:ok} (at most 20 s of
 * gossip between the processes).
 */
public final class RedisClusterNodes {

  private RedisClusterNodes() {
  }

  /** Starts the cluster, its node files in {@code dir}; the caller closes the servers. */
  public static List<RedisServer> start(Path dir) throws InterruptedException {
    List<RedisServer> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(RedisServer.start(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes-{port}.conf",
          "--dir", dir.toString())));
    }
    nodes.get(0).call("CLUSTER", "ADDSLOTSRANGE", "0", "5460");
    nodes.get(1).call("CLUSTER", "ADDSLOTSRANGE", "5461", "10922");
    nodes.get(2).call("CLUSTER", "ADDSLOTSRANGE", "10923", "16383");
    for (int i = 1; i < 3; i++) {
      nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port()));
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!nodes.stream().allMatch(node -> ((String) node.call("CLUSTER", "INFO")).contains("cluster_state:ok"))) {
      if (System.nanoTime() > deadline) {
        nodes.forEach(RedisServer::close);
        throw new IllegalStateException("the test's Redis Cluster did not reach cluster_state:ok in 20 s");
      }
      Thread.sleep(50); // gossip between real processes
    }
    return nodes;
  }
}
