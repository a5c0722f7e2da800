package dev.weir.benchmarks.cluster;

import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One hot key, a guarded call ({@code tryEntry} + close) with its rule {@code local} or leased from
 * Redis ({@code lease}, {@code weir.cluster.lease}), under two loads from {@code threads} threads:
 * <ul>
 *   <li><b>saturating</b>: every thread calls without pause for the round (what JMH's
 *       {@link LeaseBenchmark} measures); the local run's rate is the local capacity {@code C};
 *   <li><b>paced</b>: the threads together owe {@code fraction * C} calls a second (80 % by default),
 *       each its share on a schedule of ticks of {@link #TICK_NANOS}: at each tick a thread makes the
 *       calls due by then, then parks until the next tick (it never spins waiting). A thread behind
 *       its schedule makes up the calls it owes (open loop), so the achieved rate falls short of the
 *       target only when the calls themselves cannot keep up.
 * </ul>
 * The limit (10^9 a second) is never reached: a refusal or a fallback is a failure of the lease to
 * keep up, and is reported. Rounds alternate local and leased, after a warm-up of each.
 *
 * <p>Arguments: {@code port [threads=16] [secondsPerRound=5] [rounds=3] [fraction=0.8]}. Prints one
 * line per round and load: {@code round load mode target/s achieved/s refused fallbacks leaseRequests
 * meanRoundTripMicros} (the store's answers' mean latency, {@code ClusterStatus}),
 * then the medians and the ratios leased / local.
 */
public final class LeasePacedLoad {

  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private LeasePacedLoad() {
  }

  /** One engine and its connection. */
  private static final class Setup implements AutoCloseable {
    final LettuceConnectionFactory factory;
    final RedisClusterClient client;
    final Weir weir;

    Setup(int port, boolean lease) {
      factory = ClusterBench.connectionFactory(port);
      client = new RedisClusterClient(factory, "pacedlease", false, lease);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!client.connected()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no Redis on port " + port);
        }
        Thread.onSpinWait();
      }
      RuleSet rules = RuleSet.of(FlowRule.builder(ClusterBench.RESOURCE).count(LeaseBenchmark.COUNT).clusterMode(lease).build());
      weir = Weir.builder().cluster(client, new ClusterOptions(Duration.ofSeconds(1), ClusterFallback.DENY, 5,
          Duration.ofSeconds(1), 1024, lease)).rules(rules).build();
    }

    long fallbacks() {
      return weir.cluster() == null ? 0 : weir.cluster().fallbacks();
    }

    long leaseRequests() {
      return weir.cluster() == null ? 0 : weir.cluster().leaseRequests();
    }

    long latencyCount() {
      return weir.cluster() == null ? 0 : weir.cluster().latencyCount();
    }

    long latencyNanos() {
      return weir.cluster() == null ? 0 : weir.cluster().latencyTotalNanos();
    }

    @Override
    public void close() {
      weir.close();
      client.close();
      factory.destroy();
    }
  }

  /** What a round measured. */
  record Round(double target, double achieved, long refused, long fallbacks, long leaseRequests, double meanRoundTripMicros) {
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    double fraction = args.length > 4 ? Double.parseDouble(args[4]) : 0.8;
    long nanos = TimeUnit.SECONDS.toNanos(seconds);
    try (Setup local = new Setup(port, false); Setup lease = new Setup(port, true)) {
      run(local, threads, nanos / 2, 0);
      run(lease, threads, nanos / 2, 0);
      double[][] saturating = new double[2][rounds];
      double[][] paced = new double[2][rounds];
      for (int round = 0; round < rounds; round++) {
        Round l = run(local, threads, nanos, 0);
        print(round, "saturating", "local", l);
        Round s = run(lease, threads, nanos, 0);
        print(round, "saturating", "lease", s);
        saturating[0][round] = l.achieved;
        saturating[1][round] = s.achieved;
        double rate = fraction * l.achieved;
        Round pl = run(local, threads, nanos, rate);
        print(round, "paced", "local", pl);
        Round ps = run(lease, threads, nanos, rate);
        print(round, "paced", "lease", ps);
        paced[0][round] = pl.achieved;
        paced[1][round] = ps.achieved;
      }
      System.out.printf(Locale.ROOT, "median saturating local %.0f lease %.0f ratio %.2f%n", median(saturating[0]),
          median(saturating[1]), median(ratios(saturating)));
      System.out.printf(Locale.ROOT, "median paced local %.0f lease %.0f ratio %.2f%n", median(paced[0]),
          median(paced[1]), median(ratios(paced)));
    }
  }

  private static void print(int round, String load, String mode, Round r) {
    System.out.printf(Locale.ROOT, "%d %s %s %.0f %.0f %d %d %d %.0f%n", round, load, mode, r.target, r.achieved,
        r.refused, r.fallbacks, r.leaseRequests, r.meanRoundTripMicros);
  }

  private static double[] ratios(double[][] pairs) {
    double[] ratios = new double[pairs[0].length];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = pairs[1][i] / pairs[0][i];
    }
    return ratios;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /**
   * Runs {@code threads} callers on {@code setup} for {@code nanos}: without pause when {@code rate} is 0,
   * else paced at {@code rate} calls a second together.
   */
  private static Round run(Setup setup, int threads, long nanos, double rate) throws InterruptedException {
    LongAdder calls = new LongAdder();
    LongAdder refused = new LongAdder();
    long fallbacksBefore = setup.fallbacks();
    long requestsBefore = setup.leaseRequests();
    long latencyCountBefore = setup.latencyCount();
    long latencyNanosBefore = setup.latencyNanos();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    Thread[] callers = new Thread[threads];
    long[] startAt = new long[1];
    double perThreadPerNano = rate / threads / 1e9;
    for (int t = 0; t < threads; t++) {
      callers[t] = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        long start = startAt[0];
        long end = start + nanos;
        long made = 0;
        long no = 0;
        long now = System.nanoTime();
        while (now - end < 0) {
          long due = rate == 0 ? made + 256 : (long) ((now - start) * perThreadPerNano);
          while (made < due) {
            Entry entry = setup.weir.tryEntry(ClusterBench.RESOURCE, EntryType.IN, 1, (Object[]) null);
            if (entry == null) {
              no++;
            } else {
              entry.close();
            }
            made++;
          }
          if (rate != 0) {
            LockSupport.parkNanos(TICK_NANOS - (System.nanoTime() - start) % TICK_NANOS);
          }
          now = System.nanoTime();
        }
        calls.add(made);
        refused.add(no);
      }, "paced-" + t);
      callers[t].start();
    }
    ready.await();
    startAt[0] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
    go.countDown();
    for (Thread caller : callers) {
      caller.join();
    }
    double seconds = nanos / 1e9;
    long answered = setup.latencyCount() - latencyCountBefore;
    return new Round(rate, calls.sum() / seconds, refused.sum(), setup.fallbacks() - fallbacksBefore,
        setup.leaseRequests() - requestsBefore,
        answered == 0 ? 0 : (setup.latencyNanos() - latencyNanosBefore) / 1e3 / answered);
  }
}
