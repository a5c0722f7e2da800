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
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
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
 * reaches, so every call is admitted: what is measured is what a decision costs. Beside them, mode
 * {@code bucket4j}: one {@code tryConsume(1)} per call through Bucket4j's Lettuce-based proxy manager
 * (compare-and-swap: a {@code GET}, then an {@code EVAL} that writes only if the value is unchanged,
 * again from the {@code GET} while another writer won) on its own Lettuce connection to the same
 * Redis, a bucket per key with the same limit (capacity {@code COUNT}, refilled greedily by
 * {@code COUNT} a second), as {@link PerKeyClusterBenchmark} sets it up.
 *
 * <p>After each iteration it appends to {@code -p stats=<file>} one line: mode, keys, threads, calls
 * admitted in the iteration, the script calls ({@code EVALSHA} and {@code EVAL}), all commands but
 * {@code INFO}, and those commands by name ({@code get=120,eval=120}); the script keeps the last (a
 * measured) iteration's line, the Redis commands per 100 admitted calls at steady state. For Weir's
 * modes the counts are Redis' own ({@code INFO commandstats}, which also counts the calls a script
 * makes inside Redis, so only the script calls say what Weir sent). For Bucket4j they are the
 * commands its Lettuce connection sent, counted by Lettuce as it records each command's latency:
 * Bucket4j's own scripts call {@code GET}, {@code SET} and {@code PSETEX} inside Redis, which
 * {@code INFO commandstats} cannot tell apart from the {@code GET}s it sends.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LeaseBenchmark {

  /**
   * A count no run reaches, a second: Weir's rules and Bucket4j's buckets alike. 10^9, not the 2 * 10^9
   * of {@link ClusterBench}: Bucket4j refuses a refill faster than one token a nanosecond.
   */
  static final long COUNT = 1_000_000_000L;

  /**
   * {@code local}: no cluster mode; {@code percall}: one Redis decision per call; {@code lease}:
   * leases; {@code bucket4j}: Bucket4j's Lettuce proxy manager, no Weir.
   */
  @Param({"local", "percall", "lease", "bucket4j"})
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
  private final SentCommands bucket4jSent = new SentCommands();
  private ClientResources bucket4jResources;
  private RedisClient bucket4jClient;
  private StatefulRedisConnection<byte[], byte[]> bucket4jConnection;
  private BucketProxy[] buckets;
  private final LongAdder bucket4jAdmitted = new LongAdder();
  private long admittedBefore;
  private Map<String, Long> commandsBefore;
  private int threads;

  @Setup(Level.Trial)
  public void start() {
    if ("bucket4j".equals(mode)) {
      startBucket4j();
      return;
    }
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
        ? RuleSet.of(FlowRule.builder(ClusterBench.RESOURCE).count(COUNT).clusterMode(cluster).build())
        : RuleSet.of(ParamFlowRule.builder(ClusterBench.RESOURCE).paramIndex(0).count(COUNT)
            .duration(Duration.ofSeconds(1)).clusterMode(cluster).build());
    weir = Weir.builder().cluster(client, new ClusterOptions(Duration.ofSeconds(1), ClusterFallback.DENY, 5,
        Duration.ofSeconds(1), 1024, "lease".equals(mode))).rules(rules).build();
    arguments = new Object[Math.max(1, keys)][];
    for (int i = 0; i < arguments.length; i++) {
      arguments[i] = new Object[] {"k" + i};
    }
  }

  /**
   * Bucket4j's compare-and-swap proxy manager on its own Lettuce connection (byte keys and values,
   * as {@link PerKeyClusterBenchmark}), one bucket per key, kept in Redis 10 s past a full refill.
   */
  private void startBucket4j() {
    bucket4jResources = DefaultClientResources.builder().commandLatencyRecorder(bucket4jSent).build();
    bucket4jClient = RedisClient.create(bucket4jResources, RedisURI.create("127.0.0.1", port));
    bucket4jConnection = bucket4jClient.connect(ByteArrayCodec.INSTANCE);
    ProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
        .build();
    BucketConfiguration configuration = BucketConfiguration.builder()
        .addLimit(limit -> limit.capacity(COUNT).refillGreedy(COUNT, Duration.ofSeconds(1)))
        .build();
    buckets = new BucketProxy[Math.max(1, keys)];
    for (int k = 0; k < buckets.length; k++) {
      buckets[k] = proxies.getProxy(("leasebench:bucket4j:k" + k).getBytes(StandardCharsets.UTF_8), () -> configuration);
    }
  }

  @Setup(Level.Iteration)
  public void mark(BenchmarkParams params) {
    threads = params.getThreads();
    admittedBefore = admitted();
    commandsBefore = commandCalls();
  }

  @TearDown(Level.Iteration)
  public void record() {
    long admitted = admitted() - admittedBefore;
    Map<String, Long> commands = commandCalls();
    long scripts = 0;
    long all = 0;
    StringBuilder byName = new StringBuilder();
    for (Map.Entry<String, Long> command : commands.entrySet()) {
      long calls = command.getValue() - commandsBefore.getOrDefault(command.getKey(), 0L);
      if (calls == 0 || "info".equals(command.getKey())) {
        continue;
      }
      all += calls;
      if ("evalsha".equals(command.getKey()) || "eval".equals(command.getKey())) {
        scripts += calls;
      }
      byName.append(byName.isEmpty() ? "" : ",").append(command.getKey()).append('=').append(calls);
    }
    if (!stats.isEmpty()) {
      String line = mode + " " + keys + " " + threads + " " + admitted + " " + scripts + " " + all + " "
          + (byName.isEmpty() ? "-" : byName) + "\n";
      try {
        Files.writeString(Path.of(stats), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @TearDown(Level.Trial)
  public void stop() {
    if (weir == null) {
      bucket4jConnection.close();
      bucket4jClient.shutdown();
      bucket4jResources.shutdown();
      return;
    }
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

  /** Calls admitted so far: by Redis (or a lease), or by Bucket4j; none counted without cluster mode. */
  private long admitted() {
    if (weir == null) {
      return bucket4jAdmitted.sum();
    }
    return weir.cluster() == null || "local".equals(mode) ? 0 : weir.cluster().admitted();
  }

  /**
   * Commands so far by lower-case name: those Bucket4j's connection sent, or, for Weir's modes,
   * those Redis ran ({@code INFO} included), from INFO commandstats.
   */
  private Map<String, Long> commandCalls() {
    if (weir == null) {
      return bucket4jSent.snapshot();
    }
    Map<String, Long> calls = new TreeMap<>();
    try (RedisConnection connection = factory.getConnection()) {
      Properties info = connection.serverCommands().info("commandstats");
      if (info == null) {
        return calls;
      }
      for (String name : info.stringPropertyNames()) {
        if (!name.startsWith("cmdstat_")) {
          continue;
        }
        String value = info.getProperty(name);
        int from = value.indexOf("calls=") + 6;
        int to = value.indexOf(',', from);
        calls.put(name.substring(8), Long.parseLong(value.substring(from, to < 0 ? value.length() : to)));
      }
    }
    return calls;
  }

  /** Commands a Lettuce client sent, by lower-case name: its latency recorder sees each one complete. */
  private static final class SentCommands implements CommandLatencyRecorder {

    private final Map<String, LongAdder> sent = new ConcurrentHashMap<>();

    @Override
    public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
        long firstResponseLatency, long completionLatency) {
      sent.computeIfAbsent(commandType.toString().toLowerCase(Locale.ROOT), name -> new LongAdder())
          .increment();
    }

    Map<String, Long> snapshot() {
      Map<String, Long> calls = new TreeMap<>();
      sent.forEach((name, count) -> calls.put(name, count.sum()));
      return calls;
    }
  }

  @Benchmark
  public boolean decision() {
    if (buckets != null) {
      if (!buckets[keys == 1 ? 0 : ThreadLocalRandom.current().nextInt(buckets.length)].tryConsume(1)) {
        throw new IllegalStateException("Bucket4j refused: the limit is not meant to be reached");
      }
      bucket4jAdmitted.increment();
      return true;
    }
    Object[] args = keys == 1 ? null : arguments[ThreadLocalRandom.current().nextInt(arguments.length)];
    Entry entry = weir.tryEntry(ClusterBench.RESOURCE, EntryType.IN, 1, args);
    if (entry == null) {
      return false;
    }
    entry.close();
    return true;
  }
}
