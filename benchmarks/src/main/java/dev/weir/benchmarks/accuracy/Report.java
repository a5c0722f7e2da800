package dev.weir.benchmarks.accuracy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/** Writes the accuracy table as Markdown: machine, JDK, date, the tables, the targets, the reasons. */
final class Report {

  private Report() {
  }

  static String markdown(List<Engine> engines, List<Trace> traces, Map<String, Map<String, Accuracy.Cell>> cells,
      int seconds, double tookSeconds, String label, List<String> misses) {
    return markdown(engines, traces, cells, seconds, tookSeconds, label, misses, "");
  }

  /** As above, with {@code realClock} (a Markdown section, maybe empty) after the own-window table. */
  static String markdown(List<Engine> engines, List<Trace> traces, Map<String, Map<String, Accuracy.Cell>> cells,
      int seconds, double tookSeconds, String label, List<String> misses, String realClock) {
    StringBuilder out = new StringBuilder();
    Properties versions = versions();
    out.append(realClock.isEmpty() ? "# Weir vs peers: limit accuracy on driven time"
        : "# Weir vs peers: limit accuracy on driven time and on the real clock");
    if (!label.isEmpty()) {
      out.append(" (").append(label).append(')');
    }
    out.append("\n\n");
    out.append("- Machine: ").append(cpuModel()).append(", ").append(Runtime.getRuntime().availableProcessors())
        .append(" cores (`nproc`), ").append(System.getProperty("os.name")).append(' ')
        .append(System.getProperty("os.version")).append('\n');
    out.append("- JDK: ").append(System.getProperty("java.runtime.name")).append(' ')
        .append(System.getProperty("java.runtime.version")).append(", ").append(System.getProperty("java.vm.name"))
        .append(" (").append(System.getProperty("java.vm.info")).append(")\n");
    out.append("- Date: ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
        .append(" UTC\n");
    out.append("- Weir revision: ").append(gitRevision()).append('\n');
    out.append("- Peers: Sentinel ").append(versions.getProperty("sentinel", "?"))
        .append(", Resilience4j ").append(versions.getProperty("resilience4j", "?"))
        .append(", Guava ").append(versions.getProperty("guava", "?"))
        .append(", Bucket4j ").append(versions.getProperty("bucket4j", "?")).append('\n');
    out.append(String.format(Locale.ROOT, "- Limit N = %d calls per I = %d s; each trace %d s of driven time; "
        + "whole run %.1f s of real time%n", Accuracy.LIMIT, Accuracy.INTERVAL_NANOS / 1_000_000_000L, seconds, tookSeconds));
    out.append("- Produced by `benchmarks/run.sh` (`ACCURACY_ONLY=1` for this table alone), class "
        + "`dev.weir.benchmarks.accuracy.Accuracy`\n\n");

    out.append("**Worst span**: the most admissions in any half-open span `[t, t + I)`, over every real `t` "
        + "(computed from the admission timestamps, not only bucket-aligned spans), divided by N. "
        + "Above 1.00, some second let more than N calls through. "
        + "**Rate**: the long-run admitted rate, admissions per I over the trace, divided by N. "
        + "An admitted call's timestamp is when it proceeds: its arrival, plus its wait in the modes that wait "
        + "(a call that would proceed after the trace's end is left out of the rate, not of the worst span). "
        + "The many-threads trace runs " + Accuracy.THREADED_RUNS + " times per engine: its cells show the "
        + "worst run's worst span (and own window, below) and the mean rate.\n\n");
    out.append(mainTable(engines, traces, cells)).append('\n');

    out.append("## Per the engine's own window\n\n");
    out.append("The most admissions in one window of the engine's own aligned buckets, divided by N: what a "
        + "bucketed window does promise. Weir reject: 10 buckets of 100 ms; Sentinel: 2 buckets of 500 ms; "
        + "Resilience4j: its 1 s cycle.\n\n");
    out.append("| Engine | Window |");
    for (Trace trace : traces) {
      out.append(" (").append(trace.id()).append(") |");
    }
    out.append("\n| --- | --- |");
    out.append(" ---: |".repeat(traces.size()));
    out.append('\n');
    for (Engine engine : engines) {
      if (engine.ownWindowBuckets() == 0) {
        continue;
      }
      int buckets = engine.ownWindowBuckets();
      out.append("| ").append(engine.label()).append(" | ").append(buckets).append(buckets == 1 ? " bucket" : " buckets")
          .append(" of ").append(Accuracy.INTERVAL_NANOS / buckets / 1_000_000).append(" ms |");
      for (Trace trace : traces) {
        out.append(' ').append(ratio(cells.get(engine.key()).get(trace.id()).ownWindow())).append(" |");
      }
      out.append('\n');
    }
    out.append('\n');
    out.append(realClock);

    out.append("## Targets (issue 7)\n\n");
    targets(traces, cells, out, misses);
    out.append('\n');

    out.append("## Traces\n\n");
    for (Trace trace : traces) {
      out.append(String.format(Locale.ROOT, "- **(%s) %s**: %s %,d calls, offered %.1fx the limit on average.%n",
          trace.id(), trace.title(), describe(trace), trace.attempts(),
          trace.offeredLoad(Accuracy.LIMIT, Accuracy.INTERVAL_NANOS)));
    }
    out.append('\n');

    out.append("## Engines\n\n");
    for (Engine engine : engines) {
      out.append("- ").append(engine.label()).append(": ").append(engine.setup()).append('\n');
    }
    out.append('\n');
    out.append(HOW);
    out.append('\n');
    out.append(WHY);
    return out.toString();
  }

  /** The main table: worst span and rate per trace. */
  static String mainTable(List<Engine> engines, List<Trace> traces, Map<String, Map<String, Accuracy.Cell>> cells) {
    StringBuilder out = new StringBuilder("| Engine |");
    for (Trace trace : traces) {
      out.append(" (").append(trace.id()).append(") worst | (").append(trace.id()).append(") rate |");
    }
    out.append("\n| --- |").append(" ---: | ---: |".repeat(traces.size())).append('\n');
    for (Engine engine : engines) {
      out.append("| ").append(engine.label()).append(" |");
      for (Trace trace : traces) {
        Accuracy.Cell cell = cells.get(engine.key()).get(trace.id());
        out.append(' ').append(ratio(cell.worstSpan())).append(" | ")
            .append(String.format(Locale.ROOT, "%.3f", cell.ratePerInterval() / Accuracy.LIMIT)).append(" |");
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static void targets(List<Trace> traces, Map<String, Map<String, Accuracy.Cell>> cells, StringBuilder out,
      List<String> misses) {
    Map<String, Accuracy.Cell> exact = cells.get("weir-exact");
    Map<String, Accuracy.Cell> weir = cells.get("weir");
    Map<String, Accuracy.Cell> sentinel = cells.get("sentinel");
    StringBuilder values = new StringBuilder();
    boolean met = true;
    for (Trace trace : traces) {
      int worst = exact.get(trace.id()).worstSpan();
      values.append(values.length() == 0 ? "" : ", ").append('(').append(trace.id()).append(") ").append(ratio(worst));
      if (worst > Accuracy.LIMIT) {
        met = false;
        misses.add("exact admitted " + ratio(worst) + "x the limit in one span on trace (" + trace.id() + ")");
      }
    }
    out.append("- `exact` admits at most 1.00x the limit in every span of every trace: ").append(values)
        .append(met ? " — **met**" : " — **missed**").append('\n');

    values.setLength(0);
    met = true;
    for (Trace trace : traces) {
      int w = weir.get(trace.id()).worstSpan();
      int s = sentinel.get(trace.id()).worstSpan();
      values.append(values.length() == 0 ? "" : ", ").append('(').append(trace.id()).append(") ")
          .append(ratio(w)).append(" vs ").append(ratio(s));
      if (w > s) {
        met = false;
        misses.add("default worst span " + ratio(w) + " vs Sentinel " + ratio(s) + " on trace (" + trace.id() + ")");
      }
    }
    out.append("- The default mode is no worse than Sentinel's (worst span, Weir vs Sentinel): ").append(values)
        .append(met ? " — **met**" : " — **missed**").append('\n');

    values.setLength(0);
    met = true;
    for (Trace trace : traces) {
      if (trace.threads() == 1) {
        continue;
      }
      int own = weir.get(trace.id()).ownWindow();
      values.append('(').append(trace.id()).append(") ").append(ratio(own));
      if (own > Accuracy.LIMIT) {
        met = false;
        misses.add("default admitted " + ratio(own) + "x the limit in one window of its own buckets on trace ("
            + trace.id() + ")");
      }
    }
    out.append("- The default mode never exceeds the limit per its own window (10 buckets) under threads: ")
        .append(values).append(met ? " — **met**" : " — **missed**").append('\n');
  }

  private static String describe(Trace trace) {
    return switch (trace.id()) {
      case "a" -> "every 3 s, bursts of 2N calls at one instant 1 ms before and exactly at +1.0 s (an edge of "
          + "Weir's 100 ms buckets, Sentinel's 500 ms buckets and Resilience4j's cycle), +1.5 s (Weir and "
          + "Sentinel) and +1.9 s (Weir); quiet in between, so each cycle starts idle;";
      case "b" -> "one call every I / 10N = 1 ms from the start;";
      case "c" -> "exponential gaps of mean I / 2N (`new java.util.Random(" + Accuracy.SEED + ")`), one thread;";
      case "d" -> String.format(Locale.ROOT, "%d threads; every %d ms each thread makes %d calls while the clock is "
          + "frozen (a shared atomic ticker, moved by a barrier action once all threads are done);",
          trace.threads(), Accuracy.THREAD_STEP_NANOS / 1_000_000, Accuracy.CALLS_PER_THREAD_PER_STEP);
      default -> "";
    };
  }

  static String ratio(int count) {
    return count < 0 ? "—" : String.format(Locale.ROOT, "%.2f", count / (double) Accuracy.LIMIT);
  }

  private static final String HOW = """
      ## How time is driven

      - Weir: `Weir.builder().ticker(...)` reads a shared `AtomicLong`; `.sleeper(...)` records a queued \
      call's wait (per thread) instead of sleeping, and the call is timestamped at arrival + wait.
      - Sentinel: all of its time comes from `TimeUtil.currentTimeMillis()`. Its own tests stub that with \
      Mockito's `mockStatic`, which only works on the stubbing thread. The harness instead installs, by \
      reflection, a second `TimeUtil` instance (made without its constructor, so without its tick thread) in \
      the `RUNNING` state, where `currentTimeMillis()` returns a field that nothing else writes, and sets that \
      field (see `SentinelTime`). The smoke test checks that this gives exactly the admissions of the \
      `mockStatic` way on the one-thread traces. Each run uses a fresh resource and starts 10,000 s after the \
      previous one, so Sentinel's global nodes never see time go back. Its metric-log thread is off \
      (`csp.sentinel.metric.flush.interval=0`).
      - Resilience4j: `AtomicRateLimiter` reads `System.nanoTime() - nanoTimeStart` in a private method: no \
      subclass or spy can replace it. The harness sets the private final `nanoTimeStart` by reflection before \
      each step. With timeout 0 the decision depends only on which cycle the reading falls in, so the reading \
      is set up to 50 ms before the trace time (never before the start of its cycle) to absorb the real time \
      that passes during the call; a step that takes longer than that margin is detected and the run repeated.
      - Guava: `RateLimiter.create(double, SleepingStopwatch)` with a stopwatch reading the driven clock (in \
      microseconds); the class is package-private, so a small adapter lives in \
      `com.google.common.util.concurrent` in this module (`DrivenRateLimiters`). Waits are recorded, not slept.
      - Bucket4j: a custom `TimeMeter` on the driven clock.
      - Every engine's buckets or cycles start at trace time 0 (Weir's ticker and Bucket4j's meter read a whole \
      number of seconds plus trace time, Sentinel's a whole epoch second plus trace time in milliseconds, \
      Resilience4j and Guava are created at trace time 0).
      """;

  private static final String WHY = """
      ## Why the numbers are what they are

      - **A bucketed window reaches 2.00 on (a).** A window of B buckets bounds admissions per window of \
      its own buckets, not per span of length I. The burst 1 ms before +1.0 s fills the window from its last \
      bucket; the window forgets that bucket all at once one interval minus one bucket later, and the next burst \
      at that edge gets N more: Sentinel at +1.5 s (2N within 501 ms), Weir's default at +1.9 s (2N within \
      901 ms). More buckets move the second burst later, they do not make it smaller: a caller who times its \
      bursts can push any bucketed window to 2.00, which is why Weir has `exact`. Resilience4j's fixed cycles \
      give 2N within 1 ms (+0.999 s and +1.0 s straddle a cycle edge). Guava stores up to one second of unused \
      permits and Bucket4j starts (and refills) full: after the quiet part of a cycle, N calls pass at once and \
      the permits that accrue during the following second pass too.
      - **`exact` stays at 1.00 everywhere**: it admits a call only when the N-th most recent admission is at \
      least I old, so no span of length I can hold N + 1 admissions.
      - **The queue modes stay at or below 1.00**: admissions are spaced at least I / N apart, so any span of \
      length I holds at most N. With max wait 0 a burst gets only its first call through, and a call that \
      comes a little before its slot is refused, after which the next slot counts from the later arrival: \
      the rate drops below 1.00 unless arrivals line up with the spacing (that is the price of never waiting; \
      on (d), calls every 4 ms against a 10 ms spacing get one call through every 12 ms). With 500 ms of \
      waiting, a burst fills the next half second of slots and the rate is 1.00 under any overload. Guava \
      with a 500 ms timeout is different: its stored permits pass at once before the waiting starts, hence \
      2.00 on (a).
      - No Sentinel pacing row (`CONTROL_BEHAVIOR_RATE_LIMITER`): a rule with `maxQueueingTimeMs` 0 is invalid \
      in Sentinel and is silently not loaded (every call then passes), and its waits are real \
      `Thread.sleep` calls that a driven clock cannot shorten.
      - **(b) steady overload**: every windowed engine admits its N calls in the first ~100 ms of each window \
      period and then refuses for the rest of it: the worst span is exactly 1.00 and the rate 1.00. Guava and \
      the queue modes pass one call every 10 ms. Bucket4j starts full, so its first second passes N plus the \
      N refilled during it: 1.99 on every trace that is busy from the start, and a rate above 1.00 by those \
      N extra calls.
      - **(c) Poisson at 2x**: irregular arrivals show a bucketed window's blind spot without any timing \
      on the caller's part: when a bucket leaves the window, all the calls it counted free their permits at \
      once, while the latest of them are still less than I old. A span of I overlaps one bucket more than \
      the window, so it holds at most N plus what that bucket held: a Sentinel 500 ms bucket holds most of \
      a second's admissions (at 2x it admits three quarters or more of its N in the first half of each \
      second), a Weir 100 ms bucket a fifth or less. Resilience4j's fixed cycle has the same blind spot with one bucket; \
      Guava, smooth after its stored second, overshoots only after a lull.
      - **(d) threads**: Weir's window checks and counts in one CAS on the newest bucket (its other buckets \
      sealed), so no window of its own buckets ever holds more than N, whatever the interleaving. Sentinel \
      reads the window's pass count in its flow slot and adds the call to it later, in its statistic slot, \
      after the rest of the chain: threads that read the same count in between all pass, and its own window \
      can exceed N. It also replaces an expired bucket by first moving the bucket's start time and then \
      clearing its counters (`WindowWrap.resetTo`, then `MetricBucket.reset`, whose `LongAdder.reset` can \
      drop a concurrent increment): a thread reading in between counts the old second again and is \
      refused at the start of a window, so the admissions it should have had come later in the second and \
      the worst span rises above 1.00 even when no own window does. How often this happens depends on how \
      the threads interleave (2 cores here), so the Sentinel cells of (d) change from run to run; every other \
      cell of the table is the same on every run.
      """;

  private static Properties versions() {
    Properties properties = new Properties();
    try (InputStream in = Report.class.getResourceAsStream("versions.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException ignored) {
      // versions show as "?"
    }
    return properties;
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // not Linux
    }
    return System.getProperty("os.arch");
  }

  private static String gitRevision() {
    String rev = run("git", "rev-parse", "--short", "HEAD");
    if (rev == null || rev.isEmpty()) {
      return "unknown";
    }
    String dirty = run("git", "status", "--porcelain", "--", "core");
    return rev + (dirty != null && !dirty.isEmpty() ? " (core/ has uncommitted changes)" : "");
  }

  private static String run(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String text;
      try (BufferedReader reader = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        text = String.join("\n", reader.lines().toList()).trim();
      }
      if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
        return null;
      }
      return text;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
