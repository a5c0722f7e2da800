package dev.weir.benchmarks.cluster;

import dev.weir.BlockException;
import dev.weir.Entry;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

/**
 * Latency of guarded calls at a fixed 1000 calls per second (open loop), with the rule counted in
 * Redis ({@code redis}) and with the same rule counted locally ({@code local}); the difference of
 * their p99 is what cluster mode adds. Also measured the same way: Lettuce's own {@code PING} on the
 * same connection ({@code lettuce-ping}), the floor of any Redis round trip from this JVM.
 *
 * <p>Each call's latency runs from the moment it was scheduled, not from when a thread picked it
 * up, so a stall is charged to every call it delayed (no coordinated omission); workers are started
 * before the first call and added whenever all are busy, so no call waits for a thread. A call that
 * fails fails the run. On a small shared machine single runs of a few seconds differ by several
 * times at p99, so every variant is warmed up first and then measured in several rounds that
 * alternate the variants; each round prints a line, and the summary takes each variant's median p99
 * over the rounds.
 *
 * <p>Arguments: {@code port [secondsPerRound=10] [rounds=3] [warmupSeconds=5]}. Prints
 * {@code round variant calls p50 p90 p99 p99.9 max} (microseconds) per round, then
 * {@code median variant p99} per variant.
 */
public final class FixedRateLatency {

  private static final long PERIOD_NANOS = 1_000_000; // 1000 calls per second

  private FixedRateLatency() {
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    ThreadPoolExecutor workers = workers();
    try (ClusterBench local = new ClusterBench(port, false); ClusterBench redis = new ClusterBench(port, true)) {
      RedisClusterAsyncCommands<byte[], byte[]> lettuce =
          ((LettuceConnection) redis.connectionFactory.getConnection()).getNativeConnection();
      Map<String, Runnable> variants = new LinkedHashMap<>();
      variants.put("local", () -> enter(local));
      variants.put("redis", () -> enter(redis));
      variants.put("lettuce-ping", () -> {
        try {
          lettuce.ping().get(1, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      for (Runnable variant : variants.values()) {
        run(variant, warmup, workers); // JIT, connection, script load
      }
      Map<String, double[]> p99 = new LinkedHashMap<>();
      for (int round = 1; round <= rounds; round++) {
        for (Map.Entry<String, Runnable> variant : variants.entrySet()) {
          long[] sorted = run(variant.getValue(), seconds, workers);
          Arrays.sort(sorted);
          p99.computeIfAbsent(variant.getKey(), key -> new double[rounds])[round - 1] = micros(sorted, 0.99);
          System.out.println(String.format(Locale.ROOT, "round%d %s %d %.1f %.1f %.1f %.1f %.1f", round,
              variant.getKey(), sorted.length, micros(sorted, 0.50), micros(sorted, 0.90), micros(sorted, 0.99),
              micros(sorted, 0.999), sorted[sorted.length - 1] / 1e3));
        }
      }
      redis.requireNoFallback();
      p99.forEach((variant, values) -> {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        System.out.println(String.format(Locale.ROOT, "median %s %.1f", variant, sorted[sorted.length / 2]));
      });
    } finally {
      workers.shutdownNow();
    }
  }

  private static void enter(ClusterBench bench) {
    try (Entry entry = bench.weir.entry(ClusterBench.RESOURCE)) {
      // admitted: the count is never reached
    } catch (BlockException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long[] run(Runnable call, int seconds, ExecutorService workers) throws InterruptedException {
    int calls = seconds * 1000;
    long[] latencies = new long[calls];
    AtomicInteger next = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(calls);
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    long start = System.nanoTime();
    ScheduledFuture<?> ticks = clock.scheduleAtFixedRate(() -> {
      int i = next.getAndIncrement();
      if (i >= calls) {
        return;
      }
      long intended = start + i * PERIOD_NANOS;
      workers.execute(() -> {
        try {
          call.run();
          latencies[i] = System.nanoTime() - intended;
        } catch (RuntimeException e) {
          latencies[i] = Long.MAX_VALUE; // counted as the slowest
          failures.incrementAndGet();
        } finally {
          done.countDown();
        }
      });
    }, 0, PERIOD_NANOS, TimeUnit.NANOSECONDS);
    done.await();
    ticks.cancel(false);
    clock.shutdownNow();
    if (failures.get() > 0) {
      throw new IllegalStateException(failures.get() + " of " + calls + " calls failed: this run measured failures");
    }
    return latencies;
  }

  /**
   * Workers such that no call waits for a thread: 64 started before any measurement, and a new one
   * whenever all of them are busy (a hand-off queue never holds a call).
   */
  private static ThreadPoolExecutor workers() {
    ThreadPoolExecutor workers = new ThreadPoolExecutor(64, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
        new SynchronousQueue<>(), task -> {
          Thread thread = new Thread(task, "fixed-rate-worker");
          thread.setDaemon(true);
          return thread;
        });
    workers.prestartAllCoreThreads();
    return workers;
  }

  private static double micros(long[] sorted, double quantile) {
    int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e3;
  }
}
