package dev.weir.spring.test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Measures work by the CPU time of the thread that does it, the least of several runs: on a busy
 * machine (two cores shared by several builds) wall time mostly measures the others, while the
 * least CPU time of a few runs of the same work is steady enough to compare two sizes of input.
 */
public final class CpuTime {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private CpuTime() {
  }

  /** Returns the least CPU time, in nanoseconds, of {@code runs} runs of {@code work} on this thread. */
  public static long least(int runs, Runnable work) {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < runs; i++) {
      long start = THREADS.getCurrentThreadCpuTime();
      work.run();
      least = Math.min(least, THREADS.getCurrentThreadCpuTime() - start);
    }
    return least;
  }
}
