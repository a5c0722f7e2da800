package dev.weir.benchmarks.cluster;

import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.redis.RedisClusterClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Decisions per second of one guarded call ({@code tryEntry} + close) with the rule local, counted in
 * Redis per call, and leased from Redis ({@code weir.cluster.lease}), on one hot key (a flow rule)
 * or on {@code keys} keys (a param-flow rule, a uniformly random key per call), against a Redis on
 * loopback started by {@code benchmarks/cluster.sh} ({@code -p port=...}). The limit is one no run
 * reaches, so every call is admitted: what is measured is what a decision costs.
 *
 * <p>After each iteration it appends to {@code -p stats=<file>} one line: mode, keys, threads, calls
 * admitted in the iteration, and the script calls ({@code EVALSHA} and {@code EVAL}, Redis' own
 * {@code INFO commandstats}) Redis ran meanwhile; the script keeps the last (a measured) iteration's
 * line, the Redis commands per 100 admitted calls at steady state.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LeaseBenchmark {

  /** {@code local}: no cluster mode; {@code percall}: one Redis decision per call; {@code lease}: leases. */
  @Param({"local", "percall", "lease"})
  public String mode;

  /** 1: one hot key (a flow rule); more: a param-flow rule over this many keys. */
  @Param({"1", "10000"})
  public int keys;

  @Param("6379")
  public int port;

  /** A file to append each iteration's counts to; none when empty. */
  @Param("")
  public String stats;

  private LettuceConnectionFactory factory;
  private RedisClusterClient client;
  private Weir weir;
  private Object[][] arguments;
  private long admittedBefore;
  private long scriptsBefore;
  private int threads;

  @Setup(Level.Trial)
  public void start() {
    factory = ClusterBench.connectionFactory(port);
    boolean cluster = !"local".equals(mode);
    client = new RedisClusterClient(factory, "leasebench", false, "lease".equals(mode));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!client.connected()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no Redis on port " + port);
      }
      Thread.onSpinWait();
    }
    RuleSet rules = keys == 1
        ? RuleSet.of(FlowRule.builder(ClusterBench.RESOURCE).count(2_000_000_000d).clusterMode(cluster).build())
        : RuleSet.of(ParamFlowRule.builder(ClusterBench.RESOURCE).paramIndex(0).count(2_000_000_000d)
            .duration(Duration.ofSeconds(1)).clusterMode(cluster).build());
    weir = Weir.builder().cluster(client, new ClusterOptions(Duration.ofSeconds(1), ClusterFallback.DENY, 5,
        Duration.ofSeconds(1), 1024, "lease".equals(mode))).rules(rules).build();
    arguments = new Object[Math.max(1, keys)][];
    for (int i = 0; i < arguments.length; i++) {
      arguments[i] = new Object[] {"k" + i};
    }
  }

  @Setup(Level.Iteration)
  public void mark(BenchmarkParams params) {
    threads = params.getThreads();
    admittedBefore = admitted();
    scriptsBefore = scriptCalls();
  }

  @TearDown(Level.Iteration)
  public void record() {
    long admitted = admitted() - admittedBefore;
    long scripts = scriptCalls() - scriptsBefore;
    if (!stats.isEmpty()) {
      String line = mode + " " + keys + " " + threads + " " + admitted + " " + scripts + "\n";
      try {
        Files.writeString(Path.of(stats), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @TearDown(Level.Trial)
  public void stop() {
    try {
      if (weir.cluster() != null && weir.cluster().fallbacks() > 0) {
        throw new IllegalStateException(weir.cluster().fallbacks() + " decisions fell back (last failure: "
            + weir.cluster().lastFailure() + "): this run did not measure Redis decisions only");
      }
    } finally {
      weir.close();
      client.close();
      factory.destroy();
    }
  }

  /** Calls admitted so far: by Redis (or a lease), or, without cluster mode, by the resource's statistics. */
  private long admitted() {
    return weir.cluster() == null || "local".equals(mode) ? 0 : weir.cluster().admitted();
  }

  /** EVALSHA and EVAL calls Redis ran so far, from INFO commandstats. */
  private long scriptCalls() {
    try (RedisConnection connection = factory.getConnection()) {
      Properties info = connection.serverCommands().info("commandstats");
      return calls(info, "cmdstat_evalsha") + calls(info, "cmdstat_eval");
    }
  }

  private static long calls(Properties info, String command) {
    String value = info == null ? null : info.getProperty(command);
    if (value == null) {
      return 0;
    }
    int from = value.indexOf("calls=") + 6;
    int to = value.indexOf(',', from);
    return Long.parseLong(value.substring(from, to < 0 ? value.length() : to));
  }

  @Benchmark
  public boolean decision() {
    Object[] args = keys == 1 ? null : arguments[ThreadLocalRandom.current().nextInt(arguments.length)];
    Entry entry = weir.tryEntry(ClusterBench.RESOURCE, EntryType.IN, 1, args);
    if (entry == null) {
      return false;
    }
    entry.close();
    return true;
  }
}
