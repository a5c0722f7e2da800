package dev.weir.benchmarks;

import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * What a virtual thread keeps of the engine after its call: starts {@code N} virtual threads
 * (default 100 000) that each make one guarded call and then wait, alive, and takes the JVM's
 * class histogram of live objects ({@code GC.class_histogram}, after a full collection); then the
 * same with {@code N} threads that wait without a call. Prints the classes whose live instances
 * differ by at least {@code N/2} between the two (what the threads keep per thread; the heap's
 * total in use varies by hundreds of bytes per parked thread from run to run, the histogram does
 * not). Last, the resource's statistics cells: how many of their bounded number the threads'
 * calls filled, and their bytes. Needs JDK 21+:
 * <pre>
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -cp benchmarks/target-bench/weir-benchmarks.jar \
 *     dev.weir.benchmarks.VirtualThreadFootprint 100000
 * </pre>
 */
public final class VirtualThreadFootprint {

  private VirtualThreadFootprint() {
  }

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("vt", 2_000_000_000))).build();
    Runnable call = () -> {
      try (Entry entry = weir.entry("vt")) {
        // the call
      }
    };
    call.run(); // the engine's own structures exist before either measurement
    Map<String, long[]> idle = parkedHistogram(threads, () -> { });
    Map<String, long[]> called = parkedHistogram(threads, call);
    System.out.printf("JDK %s, %d virtual threads alive, each after one guarded call, compared with as many"
        + " after none:%n", Runtime.version(), threads);
    long bytes = 0;
    for (Map.Entry<String, long[]> entry : called.entrySet()) {
      long[] before = idle.getOrDefault(entry.getKey(), new long[2]);
      long instances = entry.getValue()[0] - before[0];
      if (Math.abs(instances) >= threads / 2) {
        long size = entry.getValue()[1] - before[1];
        bytes += size;
        System.out.printf("  %-60s %+10d instances %+12d B%n", entry.getKey(), instances, size);
      }
    }
    System.out.printf("kept per thread after its call: %.1f B%n", bytes / (double) threads);
    System.out.printf("the resource's statistics cells after %d virtual threads' calls: %s%n", threads,
        statisticsCells(weir.statistics("vt")));
    if (weir.statistics("vt").totalPassed() != threads + 1) {
      throw new IllegalStateException("not every call was counted");
    }
  }

  /**
   * The cells of a resource's statistics ({@code StatisticNode.rows}, read reflectively: the
   * benchmark jar puts the engine on the class path): how many have a row, of how many there can
   * be, and their bytes (each {@code long[]} row plus the array of rows; 16-byte array headers and
   * 4-byte references, as with compressed oops, the default below 32 GB of heap). Bounded by the
   * number of cells, not by the threads that called.
   */
  private static String statisticsCells(Object node) throws ReflectiveOperationException {
    Field field = null;
    for (Class<?> type = node.getClass(); type != null && field == null; type = type.getSuperclass()) {
      try {
        field = type.getDeclaredField("rows");
      } catch (NoSuchFieldException e) {
        // declared by a superclass
      }
    }
    if (field == null) {
      return "(no cells: an engine from before the cells)";
    }
    field.setAccessible(true);
    long[][] rows = (long[][]) field.get(node);
    int used = 0;
    long bytes = aligned(16 + 4L * rows.length);
    for (long[] row : rows) {
      if (row != null) {
        used++;
        bytes += aligned(16 + 8L * row.length);
      }
    }
    return String.format("%d of %d cells have a row, %d B in all", used, rows.length, bytes);
  }

  private static long aligned(long bytes) {
    return (bytes + 7) & ~7L;
  }

  /** The live-object histogram while {@code threads} virtual threads, each after {@code before}, are parked. */
  private static Map<String, long[]> parkedHistogram(int threads, Runnable before) throws Exception {
    ExecutorService executor =
        (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < threads; i++) {
      executor.execute(() -> {
        before.run();
        ready.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    if (!ready.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the threads did not start");
    }
    Map<String, long[]> histogram = histogram();
    release.countDown();
    executor.shutdown();
    executor.awaitTermination(60, TimeUnit.SECONDS);
    return histogram;
  }

  /** Class name to {instances, bytes} of live objects, from the {@code GC.class_histogram} command. */
  private static Map<String, long[]> histogram() throws Exception {
    String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
        new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
        new Object[] {new String[0]}, new String[] {String[].class.getName()});
    Map<String, long[]> classes = new TreeMap<>();
    Matcher line = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)", Pattern.MULTILINE).matcher(text);
    while (line.find()) {
      classes.put(line.group(3), new long[] {Long.parseLong(line.group(1)), Long.parseLong(line.group(2))});
    }
    return classes;
  }
}
