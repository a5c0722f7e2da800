package dev.weir.spring.test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The time a thread waits by its own doing (parked, blocked on a lock, on I/O), told apart from
 * the time the machine takes from it: waiting for a CPU, and stopped by the JVM. A bound on how
 * long a call may wait (a deadline) can then be asserted on a machine that is busy with other
 * work, where the call's wall-clock time is mostly the machine's.
 *
 * <p>Between two {@linkplain #read readings} of one thread, {@link #ownWait} is the wall-clock
 * time, less the thread's CPU time ({@link ThreadMXBean}), less the time the kernel kept it
 * runnable but off every CPU (the second field of {@code /proc/thread-self/schedstat}, Linux), less
 * the JVM's pauses (stop-the-world GC, other safepoints) in that span. The pauses are seen by a
 * witness thread that parks for 1 ms at a time: whatever it waited beyond that, less its own CPU
 * and run-queue time, stopped every Java thread. A pause is credited to a span it overlaps by at
 * most the overlap, so the result may err towards a shorter wait by up to the witness's period.
 *
 * <p>Where the kernel does not report run-queue time ({@link #exact()} false: not Linux), that
 * time counts as the thread's own wait, so a bound asserted on it is as strict as one on
 * wall-clock time.
 */
public final class WaitClock implements AutoCloseable {

  /** One reading of a thread: wall-clock, CPU and run-queue time, in nanoseconds. */
  public record Reading(long wall, long cpu, long queued) {
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final String SCHEDSTAT = "/proc/thread-self/schedstat";
  private static final long WITNESS_PERIOD = TimeUnit.MILLISECONDS.toNanos(1);
  /** A witness wait this much over its period is a pause; below it, timer slack. */
  private static final long PAUSE_THRESHOLD = TimeUnit.MICROSECONDS.toNanos(500);
  private static final int MOST_PAUSES = 100_000;

  private static final Witness WITNESS = new Witness();

  private final RandomAccessFile schedstat;
  private final byte[] buffer = new byte[128];

  private WaitClock(RandomAccessFile schedstat) {
    this.schedstat = schedstat;
  }

  /** A clock of the calling thread; read it on that thread only, close it when done. */
  public static WaitClock ofCurrentThread() {
    WITNESS.ensureStarted();
    return open();
  }

  private static WaitClock open() {
    RandomAccessFile file;
    try {
      file = new RandomAccessFile(SCHEDSTAT, "r");
    } catch (IOException | SecurityException notLinux) {
      file = null;
    }
    return new WaitClock(file);
  }

  /** Whether the kernel reports run-queue time, so that it is not counted as the thread's own wait. */
  public boolean exact() {
    return schedstat != null;
  }

  /** Reads the calling thread, which must be the one that opened this clock. */
  public Reading read() {
    long wall = System.nanoTime();
    long cpu = THREADS.getCurrentThreadCpuTime();
    return new Reading(wall, cpu, queued());
  }

  /**
   * What the thread waited by its own doing between {@code from} and {@code to}, two readings of
   * one thread, {@code from} first; see the class comment. Call it once the span has passed: it
   * waits (at most a second) until the witness has looked past {@code to}.
   */
  public static long ownWait(Reading from, Reading to) {
    long off = (to.wall - from.wall) - (to.cpu - from.cpu) - (to.queued - from.queued);
    return off - WITNESS.pausedWithin(from.wall, to.wall);
  }

  /** The run-queue time the kernel reports for the calling thread; 0 when it reports none. */
  private long queued() {
    if (schedstat == null) {
      return 0;
    }
    try {
      schedstat.seek(0);
      int length = schedstat.read(buffer);
      // "<on-cpu ns> <run-queue ns> <timeslices>\n"
      String[] fields = new String(buffer, 0, Math.max(0, length), StandardCharsets.US_ASCII).trim().split(" ");
      return Long.parseLong(fields[1]);
    } catch (IOException | RuntimeException unreadable) {
      throw new IllegalStateException(SCHEDSTAT + " became unreadable", unreadable);
    }
  }

  @Override
  public void close() {
    if (schedstat != null) {
      try {
        schedstat.close();
      } catch (IOException ignored) {
        // A read-only proc file: nothing was lost.
      }
    }
  }

  /**
   * A daemon thread that parks for {@link #WITNESS_PERIOD} over and over and records each span in
   * which it waited more than it asked for, less its own CPU and run-queue time: the JVM stopped
   * it (a thread coming back from a park into Java waits at a safepoint until the pause ends).
   */
  private static final class Witness {

    /** Pauses as {from, to, paused}: the span of the witness's wait and how much of it was a pause. */
    private final List<long[]> pauses = new ArrayList<>();
    /** The witness has recorded every pause that ended before this reading of {@code System.nanoTime()}. */
    private volatile long seenUntil = Long.MIN_VALUE;
    private boolean started;

    synchronized void ensureStarted() {
      if (started) {
        return;
      }
      started = true;
      Thread thread = new Thread(this::run, "wait-clock-witness");
      thread.setDaemon(true);
      thread.setPriority(Thread.MAX_PRIORITY);
      thread.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (seenUntil == Long.MIN_VALUE && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(WITNESS_PERIOD);
      }
    }

    private void run() {
      WaitClock own = open();
      Reading last = own.read();
      seenUntil = last.wall;
      while (true) {
        LockSupport.parkNanos(WITNESS_PERIOD);
        Reading now = own.read();
        long off = (now.wall - last.wall) - (now.cpu - last.cpu) - (now.queued - last.queued);
        long paused = off - WITNESS_PERIOD;
        if (paused > PAUSE_THRESHOLD) {
          synchronized (this) {
            if (pauses.size() >= MOST_PAUSES) {
              pauses.subList(0, MOST_PAUSES / 2).clear(); // the oldest half: no test looks that far back
            }
            pauses.add(new long[] {last.wall, now.wall, paused});
          }
        }
        seenUntil = now.wall;
        last = now;
      }
    }

    /** The pauses credited to {@code [from, to]}: each at most its overlap with the span. */
    long pausedWithin(long from, long to) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (seenUntil - to < 0 && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(WITNESS_PERIOD);
      }
      long credited = 0;
      synchronized (this) {
        for (long[] pause : pauses) {
          long overlap = Math.min(to, pause[1]) - Math.max(from, pause[0]);
          if (overlap > 0) {
            credited += Math.min(overlap, pause[2]);
          }
        }
      }
      return credited;
    }
  }
}
