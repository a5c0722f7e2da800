package dev.weir.benchmarks.cluster;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterLimit;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Cluster-mode decisions per second from one JVM against a Redis on loopback (started by
 * {@code benchmarks/cluster.sh}, port passed with {@code -p port=...}), at the thread counts given
 * with {@code -t}: {@link #engineEntry} is a whole guarded call ({@code weir.entry} + close) whose
 * rule counts in Redis; {@link #clientOnly} is the Redis client alone (one script decision), to
 * separate the engine's part. Run with {@code -bm thrpt} for decisions per second and
 * {@code -bm sample} for percentiles.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ClusterDecisionBenchmark {

  @Param("6379")
  public int port;

  private ClusterBench bench;
  private ClusterCounter counter;

  @Setup(Level.Trial)
  public void start() {
    bench = new ClusterBench(port, true);
    counter = bench.client.counter(new ClusterLimit("bench-client", "all", 2_000_000_000d, Duration.ofSeconds(1)));
  }

  @TearDown(Level.Trial)
  public void stop() {
    try {
      bench.requireNoFallback();
    } finally {
      bench.close();
    }
  }

  @Benchmark
  public boolean engineEntry() throws BlockException {
    try (Entry entry = bench.weir.entry(ClusterBench.RESOURCE)) {
      return entry != null;
    }
  }

  @Benchmark
  public ClusterDecision clientOnly() throws Exception {
    return counter.acquire(1).get(1, TimeUnit.SECONDS);
  }
}
