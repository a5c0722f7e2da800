package dev.weir.benchmarks.cluster;

import dev.weir.BlockException;
import dev.weir.Entry;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Latency of guarded calls at a fixed 1000 calls per second (open loop), with the rule counted in
 * Redis and with the same rule counted locally; the difference of their p99 is what cluster mode
 * adds. Each call's latency runs from the moment it was scheduled, not from when a thread picked it
 * up, so a stall is charged to every call it delayed (no coordinated omission).
 *
 * <p>Arguments: {@code port [seconds=20] [warmupSeconds=5]}. Prints one line per variant:
 * {@code variant calls p50 p90 p99 p99.9 max} in microseconds.
 */
public final class FixedRateLatency {

  private static final long PERIOD_NANOS = 1_000_000; // 1000 calls per second

  private FixedRateLatency() {
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    for (boolean clustered : new boolean[] {false, true}) {
      try (ClusterBench bench = new ClusterBench(port, clustered)) {
        run(bench, warmup); // JIT, connection, script load
        long[] latencies = run(bench, seconds);
        bench.requireNoFallback();
        print(clustered ? "redis" : "local", latencies);
      }
    }
  }

  private static long[] run(ClusterBench bench, int seconds) throws InterruptedException {
    int calls = seconds * 1000;
    long[] latencies = new long[calls];
    AtomicInteger next = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(calls);
    ExecutorService workers = Executors.newFixedThreadPool(64);
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    long start = System.nanoTime();
    ScheduledFuture<?> ticks = clock.scheduleAtFixedRate(() -> {
      int i = next.getAndIncrement();
      if (i >= calls) {
        return;
      }
      long intended = start + i * PERIOD_NANOS;
      workers.execute(() -> {
        try (Entry entry = bench.weir.entry(ClusterBench.RESOURCE)) {
          latencies[i] = System.nanoTime() - intended;
        } catch (BlockException e) {
          latencies[i] = Long.MAX_VALUE; // cannot happen: the count is never reached
        } finally {
          done.countDown();
        }
      });
    }, 0, PERIOD_NANOS, TimeUnit.NANOSECONDS);
    done.await();
    ticks.cancel(false);
    clock.shutdownNow();
    workers.shutdownNow();
    return latencies;
  }

  private static void print(String variant, long[] latencies) {
    long[] sorted = latencies.clone();
    Arrays.sort(sorted);
    System.out.println(String.format(Locale.ROOT, "%s %d %.1f %.1f %.1f %.1f %.1f", variant, sorted.length,
        micros(sorted, 0.50), micros(sorted, 0.90), micros(sorted, 0.99), micros(sorted, 0.999),
        sorted[sorted.length - 1] / 1e3));
  }

  private static double micros(long[] sorted, double quantile) {
    int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e3;
  }
}
