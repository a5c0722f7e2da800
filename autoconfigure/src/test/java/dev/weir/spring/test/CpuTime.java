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

  /**
   * Returns how many times the CPU time of {@code large} is that of {@code small}: each the least of
   * {@code rounds} runs, the two run in turn (small, large, small, large, ...) so that both see the
   * same moments of a busy machine, after one run of each to warm up.
   */
  public static double ratio(int rounds, Runnable small, Runnable large) {
    small.run();
    large.run();
    long leastSmall = Long.MAX_VALUE;
    long leastLarge = Long.MAX_VALUE;
    for (int i = 0; i < rounds; i++) {
      leastSmall = Math.min(leastSmall, least(1, small));
      leastLarge = Math.min(leastLarge, least(1, large));
    }
    System.out.printf("least CPU time: small %.1f ms, large %.1f ms%n", leastSmall / 1e6, leastLarge / 1e6);
    return (double) leastLarge / leastSmall;
  }

  /** The CPU time of the calling thread so far, in nanoseconds: subtract two readings. */
  public static long current() {
    return THREADS.getCurrentThreadCpuTime();
  }

  /** The CPU time of {@code thread} so far, in nanoseconds, or -1 once it has ended. */
  @SuppressWarnings("deprecation") // Thread.threadId() is Java 19; the tests compile for 17
  public static long of(Thread thread) {
    return THREADS.getThreadCpuTime(thread.getId());
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
