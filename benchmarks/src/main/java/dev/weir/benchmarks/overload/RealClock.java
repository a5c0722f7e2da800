package dev.weir.benchmarks.overload;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The headline case of the overload harness on the real clock, real threads and a real HTTP server
 * on loopback: a service of {@value #WORKERS} worker threads (log-normal service times of mean
 * {@value #MEAN_SERVICE_MS} ms, a queue of {@value #QUEUE}), open-loop Poisson arrivals at 5x its
 * capacity from {@link HttpClient}, a client deadline of {@value #DEADLINE_MS} ms, 10 % / 30 % / 60 %
 * CRITICAL_PLUS / CRITICAL / SHEDDABLE (a request header). In front of the service: nothing, or a
 * Weir engine with a {@code grade: adaptive} rule deciding each request as it arrives (refused: 503
 * at once). Timings depend on the machine: run it on a quiet one.
 *
 * <pre>
 * java -cp benchmarks/target-bench/weir-benchmarks.jar dev.weir.benchmarks.overload.RealClock [--out benchmarks/results]
 * </pre>
 */
public final class RealClock {

  static final int WORKERS = 8;
  static final double MEAN_SERVICE_MS = 40;
  static final double SIGMA = 0.5;
  static final int QUEUE = 1000;
  static final long DEADLINE_MS = 250;
  static final double CAPACITY = WORKERS * 1000 / MEAN_SERVICE_MS;
  static final double LOAD = 5;
  /** The load of the reference run that gives the unloaded p99. */
  static final double UNLOADED = 0.2;
  static final long WARM_UP_SECONDS = 10;
  static final long MEASURED_SECONDS = 20;

  private RealClock() {
  }

  /** What one run measured. */
  record Result(String name, long arrivals, long good, long refused, double p99ServedMs, long criticalPlusArrivals,
      long criticalPlusGood, long[] refusedByRank, long[] arrivalsByRank) {
  }

  /** The service and the policy in front of it. */
  static final class Service implements AutoCloseable {
    final HttpServer server;
    final ThreadPoolExecutor workers;
    final ExecutorService dispatch;
    final Weir weir;
    final boolean limited;
    final SplittableRandom random = new SplittableRandom(27);
    final double mu = Math.log(MEAN_SERVICE_MS) - SIGMA * SIGMA / 2;

    Service(boolean limited) throws IOException {
      this.limited = limited;
      this.weir = Weir.builder().loadServiceSlots(false)
          .rules(RuleSet.of(FlowRule.adaptive("service", 1, 1000, 20))).build();
      this.workers = new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE));
      this.dispatch = Executors.newFixedThreadPool(4);
      this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
      server.setExecutor(dispatch);
      server.createContext("/", this::handle);
      server.start();
    }

    int port() {
      return server.getAddress().getPort();
    }

    private synchronized long serviceNanos() {
      return (long) (Math.exp(mu + SIGMA * gaussian()) * 1_000_000L);
    }

    private double gaussian() {
      double u = 1 - random.nextDouble();
      double v = random.nextDouble();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    private void handle(HttpExchange exchange) throws IOException {
      String header = exchange.getRequestHeaders().getFirst("X-Criticality");
      Criticality criticality = header == null ? Criticality.CRITICAL : Criticality.valueOf(header);
      Entry entry = null;
      if (limited) {
        entry = weir.tryEntry("service", EntryType.IN, 1, criticality, null);
        if (entry == null) {
          respond(exchange, 503);
          return;
        }
      }
      Entry admitted = entry;
      try {
        workers.execute(() -> {
          LockSupport.parkNanos(serviceNanos());
          try {
            respond(exchange, 200);
          } finally {
            if (admitted != null) {
              admitted.close();
            }
          }
        });
      } catch (RejectedExecutionException full) {
        if (admitted != null) {
          admitted.recordError(full);
          admitted.close();
        }
        respond(exchange, 500);
      }
    }

    private static void respond(HttpExchange exchange, int status) {
      try {
        exchange.sendResponseHeaders(status, -1);
      } catch (IOException e) {
        // the client gave up
      } finally {
        exchange.close();
      }
    }

    @Override
    public void close() {
      server.stop(0);
      workers.shutdownNow();
      dispatch.shutdownNow();
      weir.close();
    }
  }

  static Result run(String name, boolean limited, double load) throws Exception {
    try (Service service = new Service(limited)) {
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .executor(Executors.newFixedThreadPool(4)).connectTimeout(Duration.ofSeconds(2)).build();
      URI uri = URI.create("http://127.0.0.1:" + service.port() + "/");
      SplittableRandom random = new SplittableRandom(5);
      long start = System.nanoTime();
      long measureFrom = start + TimeUnit.SECONDS.toNanos(WARM_UP_SECONDS);
      long end = measureFrom + TimeUnit.SECONDS.toNanos(MEASURED_SECONDS);
      AtomicLong arrivals = new AtomicLong();
      AtomicLong good = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      AtomicLong criticalPlusArrivals = new AtomicLong();
      AtomicLong criticalPlusGood = new AtomicLong();
      long[] refusedByRank = new long[4];
      long[] arrivalsByRank = new long[4];
      List<Long> served = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicInteger pending = new AtomicInteger();
      double perNano = load * CAPACITY / 1e9;
      long next = start;
      while (next < end) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        long sent = System.nanoTime();
        double draw = random.nextDouble();
        Criticality criticality = draw < 0.1 ? Criticality.CRITICAL_PLUS : draw < 0.4 ? Criticality.CRITICAL
            : Criticality.SHEDDABLE;
        boolean measured = next >= measureFrom;
        if (measured) {
          arrivals.incrementAndGet();
          synchronized (arrivalsByRank) {
            arrivalsByRank[criticality.rank()]++;
          }
          if (criticality == Criticality.CRITICAL_PLUS) {
            criticalPlusArrivals.incrementAndGet();
          }
        }
        HttpRequest request = HttpRequest.newBuilder(uri).header("X-Criticality", criticality.name())
            .timeout(Duration.ofMillis(DEADLINE_MS)).GET().build();
        pending.incrementAndGet();
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
          pending.decrementAndGet();
          if (!measured) {
            return;
          }
          long took = System.nanoTime() - sent;
          if (error != null) {
            return; // missed the deadline (or failed): not good
          }
          if (response.statusCode() == 503) {
            refused.incrementAndGet();
            synchronized (refusedByRank) {
              refusedByRank[criticality.rank()]++;
            }
          } else if (response.statusCode() == 200) {
            served.add(took);
            if (took <= TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS)) {
              good.incrementAndGet();
              if (criticality == Criticality.CRITICAL_PLUS) {
                criticalPlusGood.incrementAndGet();
              }
            }
          }
        });
        next += Math.max(1, (long) (-Math.log(1 - random.nextDouble()) / perNano));
      }
      long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (pending.get() > 0 && System.nanoTime() - drainUntil < 0) {
        Thread.sleep(10);
      }
      long[] latencies;
      synchronized (served) {
        latencies = served.stream().mapToLong(Long::longValue).sorted().toArray();
      }
      double p99 = latencies.length == 0 ? Double.NaN
          : latencies[Math.min(latencies.length - 1, (int) Math.ceil(0.99 * latencies.length) - 1)] / 1e6;
      return new Result(name, arrivals.get(), good.get(), refused.get(), p99, criticalPlusArrivals.get(),
          criticalPlusGood.get(), refusedByRank.clone(), arrivalsByRank.clone());
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of("benchmarks/results");
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--out")) {
        out = Path.of(args[++i]);
      } else {
        throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    double unloadedP99 = run("unloaded", false, UNLOADED).p99ServedMs();
    List<Result> results = new ArrayList<>();
    results.add(run("no limiter", false, LOAD));
    results.add(run("Weir adaptive", true, LOAD));
    StringBuilder md = new StringBuilder("# Overload on the real clock (HTTP, real threads)\n\n");
    md.append(String.format(Locale.ROOT, "Service: %d worker threads, log-normal service time (mean %.0f ms, sigma "
            + "%.1f) by parkNanos, a queue of %d, capacity %.0f requests/s, behind the JDK's HttpServer on loopback; "
            + "open-loop Poisson arrivals at %.0fx capacity from java.net.http.HttpClient, deadline %d ms (the "
            + "request's timeout); 10 %% CRITICAL_PLUS, 30 %% CRITICAL, 60 %% SHEDDABLE (header X-Criticality). "
            + "%d s warm-up, %d s measured. Machine: %s, %d CPUs, %s %s.%n%n", WORKERS, MEAN_SERVICE_MS, SIGMA,
        QUEUE, CAPACITY, LOAD, DEADLINE_MS, WARM_UP_SECONDS, MEASURED_SECONDS, System.getProperty("os.arch"),
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
        System.getProperty("java.version")));
    md.append(String.format(Locale.ROOT, "Unloaded p99 (%.1fx, no limiter): %.1f ms. A request that missed its "
        + "deadline has no latency here (the client gave up): \"-\" when none was served in time.%n%n", UNLOADED,
        unloadedP99));
    md.append("| policy at " + LOAD + "x | goodput (of capacity) | p99 of served in time (ms) | refused | refused CRITICAL_PLUS / CRITICAL / "
        + "SHEDDABLE | CRITICAL_PLUS available |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (Result r : results) {
      md.append(String.format(Locale.ROOT, "| %s | %.1f %% | %s | %.1f %% | %s | %.2f %% |%n", r.name(),
          100.0 * r.good() / MEASURED_SECONDS / CAPACITY,
          Double.isNaN(r.p99ServedMs()) ? "-" : String.format(Locale.ROOT, "%.1f", r.p99ServedMs()), 100.0 * r.refused() / r.arrivals(),
          share(r, Criticality.CRITICAL_PLUS) + " / " + share(r, Criticality.CRITICAL) + " / "
              + share(r, Criticality.SHEDDABLE),
          100.0 * r.criticalPlusGood() / Math.max(1, r.criticalPlusArrivals())));
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("overload-real.md"), md.toString());
    System.out.println(md);
    System.exit(0); // the client's executor threads
  }

  private static String share(Result r, Criticality criticality) {
    long arrivals = r.arrivalsByRank()[criticality.rank()];
    return arrivals == 0 ? "-" : String.format(Locale.ROOT, "%.1f %%",
        100.0 * r.refusedByRank()[criticality.rank()] / arrivals);
  }
}
