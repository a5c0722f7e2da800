package dev.weir.benchmarks.overload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The overload harness of issue 27: a simulated service (40 workers, log-normal service times of mean
 * 20 ms, a queue of 1000, a client deadline of 250 ms) on driven time, in front of which each contender
 * decides every request: no limiter, a static limit at the knee (40), Netflix concurrency-limits'
 * Gradient2 (with Weir's bounds and with its own defaults) and Vegas, and Weir's {@code adaptive}
 * rule through a real engine. Same seeds, same traffic for every contender. Deterministic (driven
 * time, one thread), but for Netflix's VegasLimit, whose probe draws from ThreadLocalRandom.
 *
 * <pre>
 * java -cp benchmarks/target-bench/weir-benchmarks.jar dev.weir.benchmarks.overload.Overload \
 *     [--out benchmarks/results] [--degradation-seconds 600]
 * </pre>
 *
 * Writes {@code overload.md} (the tables) and {@code overload-goodput.svg},
 * {@code overload-inflight.svg} (the capacity-change run over time) into the output folder.
 */
public final class Overload {

  static final double[] LOADS = {0.5, 0.8, 1.0, 2.0, 5.0};
  static final long WARM_UP = 10 * Simulation.SECOND;
  static final long MEASURED = 60 * Simulation.SECOND;
  static long SEED = 27;
  /** The capacity-change run: load, when capacity halves, and how long it stays halved. */
  static final double CHANGE_LOAD = 2.0;
  static final long HALVES_AT = 60 * Simulation.SECOND;
  static final long AFTER_RECOVERY = 100 * Simulation.SECOND;

  /** The steady load whose run is traced on stderr (--trace-load), or NaN. */
  static double TRACE_LOAD = Double.NaN;

  private Overload() {
  }

  static List<Contender.Kind> kinds() {
    return List.of(
        Contender.kind("no limiter", clock -> new Contender.None()),
        Contender.kind("static limit 40", clock -> new Contender.Static(Simulation.WORKERS)),
        Contender.kind("Gradient2 (same bounds)", Contender.Netflix::gradient2),
        Contender.kind("Gradient2 (its defaults)", Contender.Netflix::gradient2Defaults),
        Contender.kind("Vegas (same bounds)", Contender.Netflix::vegas),
        Contender.kind("Weir adaptive", clock -> new Contender.WeirAdaptive(clock, true)));
  }

  /** {@code rejectedByRank}: the share refused of each criticality's arrivals, by rank. */
  record Steady(double goodput, double p99, double rejected, double criticalPlus, double meanInFlight,
      double[] rejectedByRank) {
  }

  record Change(double halvedConvergence, double recoveredConvergence, double halvedConvergence5,
      double recoveredConvergence5, double creep, double[] goodput,
      double[] inFlight, double[] limit) {
  }

  static Simulation.Schedule constant(double load, int workers) {
    return new Simulation.Schedule() {
      @Override
      public double load(long t) {
        return load;
      }

      @Override
      public int workers(long t) {
        return workers;
      }

      @Override
      public long nextChange(long t) {
        return Long.MAX_VALUE;
      }
    };
  }

  static Steady steady(Contender.Kind kind, double load) {
    Simulation sim = new Simulation(SEED, constant(load, Simulation.WORKERS), WARM_UP + MEASURED + Simulation.SECOND,
        WARM_UP, WARM_UP + MEASURED);
    sim.run(kind.create(() -> sim.now));
    if (TRACE_LOAD == load) {
      for (int s = 0; s < sim.inFlight.length; s++) {
        System.err.printf(Locale.ROOT, "%s %.1fx t=%d goodput=%.0f inside=%.1f limit=%.0f%n", kind.name(), load, s,
            sim.goodput[s], sim.inFlight[s], sim.limit[s]);
      }
    }
    double seconds = MEASURED / (double) Simulation.SECOND;
    double meanInFlight = 0;
    for (int i = (int) (WARM_UP / Simulation.BUCKET); i < sim.inFlight.length - 1; i++) {
      meanInFlight += sim.inFlight[i];
    }
    meanInFlight /= (sim.inFlight.length - 1 - (int) (WARM_UP / Simulation.BUCKET));
    return new Steady(sim.good / seconds / Simulation.CAPACITY, sim.latencyQuantileMillis(0.99),
        sim.arrivals == 0 ? 0 : (double) sim.refused / sim.arrivals,
        sim.criticalPlusArrivals == 0 ? 1 : (double) sim.criticalPlusGood / sim.criticalPlusArrivals, meanInFlight,
        shares(sim.refusedByRank, sim.arrivalsByRank));
  }

  static Change change(Contender.Kind kind, long degradation) {
    long recovers = HALVES_AT + degradation;
    long end = recovers + AFTER_RECOVERY;
    Simulation.Schedule schedule = new Simulation.Schedule() {
      @Override
      public double load(long t) {
        return CHANGE_LOAD;
      }

      @Override
      public int workers(long t) {
        return t >= HALVES_AT && t < recovers ? Simulation.WORKERS / 2 : Simulation.WORKERS;
      }

      @Override
      public long nextChange(long t) {
        return t < HALVES_AT ? HALVES_AT : t < recovers ? recovers : Long.MAX_VALUE;
      }
    };
    Simulation sim = new Simulation(SEED, schedule, end, 0, end - Simulation.SECOND);
    sim.run(kind.create(() -> sim.now));
    int halves = (int) (HALVES_AT / Simulation.BUCKET);
    int recovered = (int) (recovers / Simulation.BUCKET);
    int last = (int) (end / Simulation.BUCKET);
    double halvedConvergence = convergence(sim.inFlight, halves, recovered, Simulation.WORKERS / 2.0);
    double recoveredConvergence = convergence(sim.inFlight, recovered, last, Simulation.WORKERS);
    double[] smooth = movingMean(sim.inFlight, 5);
    double halvedConvergence5 = convergence(smooth, halves, recovered, Simulation.WORKERS / 2.0);
    double recoveredConvergence5 = convergence(smooth, recovered, last, Simulation.WORKERS);
    double early = mean(sim.inFlight, halves + 60, halves + 120);
    double late = mean(sim.inFlight, recovered - 60, recovered);
    return new Change(halvedConvergence, recoveredConvergence, halvedConvergence5, recoveredConvergence5, (late - early) / early, sim.goodput, sim.inFlight,
        sim.limit);
  }

  /** Seconds from {@code from} until the mean calls inside stay within 10 % of {@code knee} for 30 s (or to {@code to}). */
  static double convergence(double[] inFlight, int from, int to, double knee) {
    for (int start = from; start < to; start++) {
      int until = Math.min(to, start + 30);
      boolean inside = until > start;
      for (int i = start; i < until && inside; i++) {
        inside = Math.abs(inFlight[i] - knee) <= 0.1 * knee;
      }
      if (inside) {
        return start - from;
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  private static double[] shares(long[] parts, long[] totals) {
    double[] shares = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      shares[i] = totals[i] == 0 ? 0 : (double) parts[i] / totals[i];
    }
    return shares;
  }

  /** At each second, the mean of that second and the {@code seconds - 1} after it (fewer at the end). */
  static double[] movingMean(double[] values, int seconds) {
    double[] means = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      means[i] = mean(values, i, Math.min(values.length, i + seconds));
    }
    return means;
  }

  static double mean(double[] values, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++) {
      sum += values[i];
    }
    return sum / (to - from);
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of("benchmarks/results");
    long degradation = 600 * Simulation.SECOND;
    String only = null;
    boolean trace = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--degradation-seconds" -> degradation = Long.parseLong(args[++i]) * Simulation.SECOND;
        case "--only" -> only = args[++i];
        case "--seed" -> SEED = Long.parseLong(args[++i]);
        case "--trace" -> trace = true;
        case "--trace-load" -> TRACE_LOAD = Double.parseDouble(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    long started = System.nanoTime();
    Simulation unloaded = new Simulation(SEED, constant(0.2, Simulation.WORKERS), WARM_UP + MEASURED + Simulation.SECOND,
        WARM_UP, WARM_UP + MEASURED);
    unloaded.run(new Contender.None());
    double unloadedP99 = unloaded.latencyQuantileMillis(0.99);
    Map<String, Steady[]> steady = new LinkedHashMap<>();
    Map<String, Change> changes = new LinkedHashMap<>();
    for (Contender.Kind kind : kinds()) {
      if (only != null && !kind.name().contains(only)) {
        continue;
      }
      Steady[] rows = new Steady[LOADS.length];
      for (int i = 0; i < LOADS.length; i++) {
        rows[i] = steady(kind, LOADS[i]);
      }
      steady.put(kind.name(), rows);
      Change change = change(kind, degradation);
      changes.put(kind.name(), change);
      if (trace) {
        for (int s = 0; s < change.inFlight().length; s++) {
          System.err.printf(Locale.ROOT, "%s t=%d goodput=%.0f inside=%.1f limit=%.0f%n", kind.name(), s,
              change.goodput()[s], change.inFlight()[s], change.limit()[s]);
        }
      }
      System.err.printf(Locale.ROOT, "%s done (%.0f s)%n", kind.name(), (System.nanoTime() - started) / 1e9);
    }
    String report = Report.markdown(unloadedP99, steady, changes, degradation, (System.nanoTime() - started) / 1e9);
    Files.createDirectories(out);
    Files.writeString(out.resolve("overload.md"), report);
    Report.plots(out, changes, degradation);
    System.out.println(report);
  }

  static List<String> names(Map<String, ?> map) {
    return new ArrayList<>(map.keySet());
  }
}
