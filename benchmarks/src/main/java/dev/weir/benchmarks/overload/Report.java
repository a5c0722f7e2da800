package dev.weir.benchmarks.overload;

import dev.weir.Criticality;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The harness's tables (markdown) and plots (SVG). */
final class Report {

  private static final String[] COLOURS = {"#888888", "#8c564b", "#1f77b4", "#17becf", "#ff7f0e", "#d62728"};

  private Report() {
  }

  static String markdown(double unloadedP99, Map<String, Overload.Steady[]> steady, Map<String, Overload.Change> changes,
      long degradation, double tookSeconds) {
    StringBuilder md = new StringBuilder("# Overload: adaptive limits side by side (driven time)\n\n");
    md.append(String.format(Locale.ROOT, "Service: %d workers, log-normal service time (mean %.0f ms, sigma %.1f), "
            + "a queue of %d, capacity %.0f requests/s; client deadline %d ms; Poisson arrivals, 10 %% CRITICAL_PLUS, "
            + "30 %% CRITICAL, 60 %% SHEDDABLE; seed %d. Unloaded p99 (0.2x, no limiter): %.1f ms. Steady runs: %d s "
            + "warm-up, then %d s measured. Capacity change: %.0fx load, the workers halve at %d s for %d s, then "
            + "recover. Adaptive limits: min 1, max 1000, initial 20 (but Gradient2 on its defaults: min 20, max "
            + "200). Run took %.0f s.%n%n",
        Simulation.WORKERS, Simulation.MEAN_SERVICE_MS, Simulation.SIGMA, Simulation.QUEUE, Simulation.CAPACITY,
        Simulation.DEADLINE / Simulation.MS, Overload.SEED, unloadedP99, Overload.WARM_UP / Simulation.SECOND,
        Overload.MEASURED / Simulation.SECOND, Overload.CHANGE_LOAD, Overload.HALVES_AT / Simulation.SECOND,
        degradation / Simulation.SECOND, tookSeconds));
    md.append("## The issue's table\n\n");
    md.append("| contender | goodput at 5x (of peak) | admitted p99 at 5x / unloaded | rejected at 0.5x | rejected at 0.8x "
        + "| converged after halving (1 s / 5 s means) | after recovery (1 s / 5 s) | creep over the degradation | CRITICAL_PLUS availability at 5x |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    int five = index(5.0);
    int half = index(0.5);
    int eighty = index(0.8);
    for (String name : steady.keySet()) {
      Overload.Steady[] rows = steady.get(name);
      Overload.Change change = changes.get(name);
      md.append(String.format(Locale.ROOT, "| %s | %.1f %% | %.2fx | %s | %s | %s / %s | %s / %s | %+.1f %% | %.3f %% |%n", name,
          100 * rows[five].goodput(), rows[five].p99() / unloadedP99, percent(rows[half].rejected()),
          percent(rows[eighty].rejected()), seconds(change.halvedConvergence()),
          seconds(change.halvedConvergence5()), seconds(change.recoveredConvergence()),
          seconds(change.recoveredConvergence5()), 100 * change.creep(), 100 * rows[five].criticalPlus()));
    }
    md.append("\nTargets: goodput >= 90 %; p99 <= 1.5x; 0 rejected at 0.5x; <= 0.1 % at 0.8x; in-flight within 10 % "
        + "of the new knee within 10 s of halving and 30 s of recovery (converged: the first second from which the "
        + "1-second mean of the calls inside, or the mean over the next 5 seconds, stays within 10 % of the knee for 30 s); no upward creep (creep: the "
        + "mean calls inside over the last minute of the degradation against its second minute); CRITICAL_PLUS "
        + ">= 99.9 %.\n\n");
    md.append("## Every load\n\n");
    md.append("| contender | load | goodput (of peak) | admitted p99 (ms) | rejected | rejected CRITICAL_PLUS "
        + "/ CRITICAL / SHEDDABLE | CRITICAL_PLUS available | mean calls inside |\n"
        + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (String name : steady.keySet()) {
      Overload.Steady[] rows = steady.get(name);
      for (int i = 0; i < Overload.LOADS.length; i++) {
        Overload.Steady row = rows[i];
        double[] byRank = row.rejectedByRank();
        md.append(String.format(Locale.ROOT, "| %s | %.1fx | %.1f %% | %.1f | %s | %s / %s / %s | %.3f %% | %.1f |%n",
            name, Overload.LOADS[i], 100 * row.goodput(), row.p99(), percent(row.rejected()),
            percent(byRank[Criticality.CRITICAL_PLUS.rank()]), percent(byRank[Criticality.CRITICAL.rank()]),
            percent(byRank[Criticality.SHEDDABLE.rank()]), 100 * row.criticalPlus(), row.meanInFlight()));
      }
    }
    md.append("\n## The capacity change over time\n\n");
    md.append("Calls inside (1-second mean) / the contender's limit at that second (- for none), at the "
        + Overload.CHANGE_LOAD + "x run; the capacity halves at " + Overload.HALVES_AT / Simulation.SECOND
        + " s and recovers at " + (Overload.HALVES_AT + degradation) / Simulation.SECOND + " s.\n\n");
    int[] at = timesToShow(degradation);
    md.append("| contender |");
    for (int t : at) {
      md.append(" ").append(t).append(" s |");
    }
    md.append("\n| --- |");
    for (int i = 0; i < at.length; i++) {
      md.append(" ---: |");
    }
    md.append("\n");
    for (Map.Entry<String, Overload.Change> entry : changes.entrySet()) {
      md.append("| ").append(entry.getKey()).append(" |");
      Overload.Change change = entry.getValue();
      for (int t : at) {
        double limit = change.limit()[t];
        md.append(String.format(Locale.ROOT, " %.0f / %s |", change.inFlight()[t],
            limit < 0 ? "-" : String.format(Locale.ROOT, "%.0f", limit)));
      }
      md.append("\n");
    }
    md.append("\n![goodput over time](overload-goodput.svg)\n\n![calls inside over time](overload-inflight.svg)\n"
        + "\n![limits over time](overload-limit.svg)\n");
    return md.toString();
  }

  static void plots(Path out, Map<String, Overload.Change> changes, long degradation) throws IOException {
    List<Svg.Line> goodput = new ArrayList<>();
    List<Svg.Line> inside = new ArrayList<>();
    List<Svg.Line> limits = new ArrayList<>();
    int i = 0;
    for (Map.Entry<String, Overload.Change> entry : changes.entrySet()) {
      String colour = COLOURS[i++ % COLOURS.length];
      Overload.Change change = entry.getValue();
      goodput.add(new Svg.Line(entry.getKey(), colour, trim(change.goodput()), false));
      inside.add(new Svg.Line(entry.getKey(), colour, trim(change.inFlight()), false));
      if (entry.getKey().startsWith("Weir")) {
        inside.add(new Svg.Line(entry.getKey() + ": limit", colour, trim(change.limit()), true));
      }
      if (!entry.getKey().equals("no limiter")) {
        limits.add(new Svg.Line(entry.getKey(), colour, trim(change.limit()), false));
      }
    }
    double halves = Overload.HALVES_AT / (double) Simulation.SECOND;
    double recovers = halves + degradation / (double) Simulation.SECOND;
    List<double[]> marks = List.of(new double[] {halves}, new double[] {recovers});
    Files.writeString(out.resolve("overload-goodput.svg"), Svg.chart(String.format(Locale.ROOT,
        "Goodput (requests/s within the deadline), %.0fx load; capacity halves at %.0f s, recovers at %.0f s",
        Overload.CHANGE_LOAD, halves, recovers), "requests/s within the deadline", goodput,
        Simulation.CAPACITY * 1.1, marks));
    Files.writeString(out.resolve("overload-inflight.svg"), Svg.chart(String.format(Locale.ROOT,
        "Calls inside (1 s means) and Weir's limit; knee %d, then %d, then %d", Simulation.WORKERS,
        Simulation.WORKERS / 2, Simulation.WORKERS), "calls inside", inside, 120, marks));
    Files.writeString(out.resolve("overload-limit.svg"), Svg.chart(String.format(Locale.ROOT,
        "Each contender's limit (clipped at 250); knee %d, then %d, then %d", Simulation.WORKERS,
        Simulation.WORKERS / 2, Simulation.WORKERS), "limit (calls)", limits, 250, marks));
  }

  /** The seconds the over-time table shows: before, around and after each change. */
  private static int[] timesToShow(long degradation) {
    int halves = (int) (Overload.HALVES_AT / Simulation.SECOND);
    int recovers = halves + (int) (degradation / Simulation.SECOND);
    int end = recovers + (int) (Overload.AFTER_RECOVERY / Simulation.SECOND);
    return java.util.stream.IntStream.of(30, halves - 1, halves + 1, halves + 3, halves + 10, halves + 30,
        halves + 120, recovers - 1, recovers + 1, recovers + 3, recovers + 10, recovers + 30, end - 2)
        .filter(t -> t >= 0 && t < end).distinct().sorted().toArray();
  }

  /** The series without its last, partial second. */
  private static double[] trim(double[] values) {
    return java.util.Arrays.copyOf(values, values.length - 1);
  }

  private static int index(double load) {
    for (int i = 0; i < Overload.LOADS.length; i++) {
      if (Overload.LOADS[i] == load) {
        return i;
      }
    }
    throw new IllegalArgumentException("no load " + load);
  }

  private static String percent(double share) {
    return share == 0 ? "0" : String.format(Locale.ROOT, "%.3f %%", 100 * share);
  }

  private static String seconds(double value) {
    return Double.isInfinite(value) ? "never" : String.format(Locale.ROOT, "%.0f s", value);
  }
}
