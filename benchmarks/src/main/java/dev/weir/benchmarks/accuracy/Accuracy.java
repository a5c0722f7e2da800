package dev.weir.benchmarks.accuracy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Limit accuracy of Weir beside its peers, on driven time: every engine gets the same traces of
 * calls, its clock set to each call's instant, and the harness records when each admitted call
 * proceeded. Deterministic for the one-thread traces; the many-threads trace depends on how the
 * threads interleave (the clock is still driven). No JMH, no sleeping: a full run takes seconds.
 *
 * <pre>
 * java -cp benchmarks/target-bench/weir-benchmarks.jar dev.weir.benchmarks.accuracy.Accuracy \
 *     [--out benchmarks/results/accuracy.md] [--seconds 30]
 * </pre>
 *
 * <p>Exits 0 after writing the table even when a target is missed (the table says so); exits 1
 * when an engine cannot be driven.
 */
public final class Accuracy {

  /** N: the limit, calls per interval. */
  public static final int LIMIT = 100;
  /** I: the interval (Sentinel and Guava count per second). */
  public static final long INTERVAL_NANOS = 1_000_000_000L;
  /** Seed of the Poisson trace. */
  public static final long SEED = 7;
  /** Trace (d): threads, the step, and the calls of each thread per step (8 * 4 every 4 ms = 80x). */
  public static final int THREADS = 8;
  public static final long THREAD_STEP_NANOS = 4_000_000L;
  public static final int CALLS_PER_THREAD_PER_STEP = 4;
  /**
   * Runs of a many-threads trace per engine: the interleaving differs from run to run, so its cells
   * report the worst span and own-window count of the worst run, and the mean rate.
   */
  public static final int THREADED_RUNS = 5;

  private Accuracy() {
  }

  /** The four traces, each {@code seconds} long. */
  public static List<Trace> traces(int seconds) {
    long duration = seconds * INTERVAL_NANOS;
    return List.of(
        Trace.edgeBursts(LIMIT, INTERVAL_NANOS, duration),
        Trace.steadyOverload(LIMIT, INTERVAL_NANOS, duration),
        Trace.poisson(LIMIT, INTERVAL_NANOS, duration, SEED),
        Trace.threads(duration, THREADS, THREAD_STEP_NANOS, CALLS_PER_THREAD_PER_STEP));
  }

  /**
   * One engine on one trace. Counts are admissions; divide by {@link #LIMIT} for the table.
   *
   * @param runs runs measured (more than one for a many-threads trace)
   * @param worstSpan the most admissions in a span of one interval, in the worst run
   * @param ownWindow the most admissions in a window of the engine's own buckets, in the worst run; -1 if none
   * @param ratePerInterval admissions per interval within the trace, mean over the runs
   */
  record Cell(int runs, int worstSpan, int ownWindow, double ratePerInterval) {
  }

  /** Every engine on every trace: engine key, then trace id. */
  static Map<String, Map<String, Cell>> measure(List<Engine> engines, List<Trace> traces) {
    Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();
    for (Engine engine : engines) {
      Map<String, Cell> row = new LinkedHashMap<>();
      for (Trace trace : traces) {
        row.put(trace.id(), measure(engine, trace));
      }
      cells.put(engine.key(), row);
    }
    return cells;
  }

  static Cell measure(Engine engine, Trace trace) {
    return measure(engine, trace, trace.threads() > 1 ? THREADED_RUNS : 1);
  }

  static Cell measure(Engine engine, Trace trace, int runs) {
    int worst = 0;
    int own = -1;
    double rate = 0;
    for (int i = 0; i < runs; i++) {
      long[] admitted = Runner.run(engine, trace, LIMIT, INTERVAL_NANOS).admissions();
      worst = Math.max(worst, Metrics.worstSpan(admitted, INTERVAL_NANOS));
      if (engine.ownWindowBuckets() > 0) {
        own = Math.max(own, Metrics.ownWindow(admitted, INTERVAL_NANOS, engine.ownWindowBuckets()));
      }
      rate += Metrics.rate(admitted, INTERVAL_NANOS, trace.durationNanos()) / runs;
    }
    return new Cell(runs, worst, own, rate);
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of("benchmarks", "results", "accuracy.md");
    int seconds = 30;
    int realSeconds = 3;
    int realRuns = RealClock.RUNS;
    String label = "";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--label" -> label = args[++i];
        case "--real-seconds" -> realSeconds = Integer.parseInt(args[++i]);
        case "--real-runs" -> realRuns = Integer.parseInt(args[++i]);
        case "-h", "--help" -> {
          System.out.println("usage: Accuracy [--out benchmarks/results/accuracy.md] [--seconds 30] [--label TEXT]"
              + " [--real-seconds 3 (0: no real-clock table)] [--real-runs 3]");
          return;
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (seconds < 20) {
      System.err.println("note: traces of " + seconds + " s (the published table uses at least 20 s)");
    }
    long started = System.nanoTime();
    List<Engine> engines = Engines.all();
    List<Trace> traces = traces(seconds);
    Map<String, Map<String, Cell>> cells = measure(engines, traces);
    SentinelTime.uninstall();
    // Real clock, many threads: in the same run, after the driven traces (Sentinel back on its own clock).
    String real = "";
    String realTable = "";
    if (realSeconds > 0) {
      List<RealClock.RealEngine> realEngines = RealClock.all();
      Map<String, RealClock.Cell> realCells = RealClock.measure(realEngines, realSeconds, realRuns);
      real = RealClock.markdown(realEngines, realCells, realSeconds, realRuns);
      realTable = RealClock.table(realEngines, realCells);
    }
    double took = (System.nanoTime() - started) / 1e9;

    List<String> misses = new ArrayList<>();
    String markdown = Report.markdown(engines, traces, cells, seconds, took, label, misses, real);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, markdown);
    System.out.println(Report.mainTable(engines, traces, cells));
    System.out.println(realTable);
    System.out.println("wrote " + out + String.format(" (%.1f s)", took));
    for (String miss : misses) {
      System.out.println("TARGET MISSED: " + miss);
    }
    // Sentinel's and Weir's background threads are daemons, but say it plainly.
    System.exit(0);
  }
}
