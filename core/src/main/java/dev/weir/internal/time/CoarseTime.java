package dev.weir.internal.time;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.locks.LockSupport;

/**
 * An engine time read from a field: a daemon thread of the engine's own takes a reading of the
 * engine's clock ({@link EngineClock#readFresh}) every {@code resolutionNanos} and publishes it in
 * {@link #now}, so that a call reads one volatile field instead of the ticker. Reading
 * {@code System.nanoTime()} costs about 25 ns here, and an entry and its close read the clock once
 * each: the field is the cheaper half of the call.
 *
 * <h2>What a coarse time changes, and what it does not</h2>
 * Every reading is an earlier reading of the same clock, so engine time stays monotonic and every
 * limiter decides as before, on engine time: no bound stated in engine time can be broken by it.
 * What changes is how far engine time trails the ticker: up to the resolution while the thread runs
 * on time, more while the machine is too busy to schedule it (engine time then stands still, which
 * can only make limiters admit less, as if the calls had come earlier). A response time is the
 * difference of two readings and so is known to the resolution; the mean over many calls is not
 * biased by it. Where a limiter re-reads the clock (a late call, a queue that waits) it reads the
 * ticker ({@link EngineClock#readFresh}). And while calls come, engine time cannot stand still for
 * long: a thread's every {@value #CALLS_PER_FRESH_READING}th call reads the ticker and publishes its
 * reading ({@link EngineClock#read(int)}), so a machine too busy to schedule this clock's thread
 * (seen here: for a whole second, with eight threads calling on two cores) does not freeze it.
 *
 * <h2>Its thread</h2>
 * The thread holds the clock and its owner (the engine) weakly, so an engine that is dropped without
 * being closed is still collected, and its thread ends at its next tick; {@link #stop} ends it at
 * once. The owner matters because the clock itself can outlive its engine: every thread that made a
 * call keeps its call stack, which holds the clock, in a thread-local entry that is expunged only
 * later; the engine is held by its users alone.
 */
final class CoarseTime {

  /**
   * How often a thread's calls read the ticker themselves: one in this many (a power of two). It
   * bounds how long engine time can stand still while calls come, whatever the scheduler does with
   * this clock's thread, for an amortised {@code 1/64} of a ticker reading per call.
   */
  static final int CALLS_PER_FRESH_READING = 64;
  private static final VarHandle NOW;

  static {
    try {
      NOW = MethodHandles.lookup().findVarHandle(CoarseTime.class, "now", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The last reading published; what {@link EngineClock#read} returns. Never lowered. */
  volatile long now;
  final long resolutionNanos;
  private volatile boolean stopped;
  private final Thread thread;

  /**
   * The coarse time of {@code clock}, its first reading taken now; its thread starts with
   * {@link #start}, which the clock calls once this is its coarse time.
   */
  CoarseTime(EngineClock clock, Object owner, long resolutionNanos) {
    this.now = clock.readFresh();
    this.resolutionNanos = resolutionNanos;
    WeakReference<EngineClock> ref = new WeakReference<>(clock);
    WeakReference<Object> ownerRef = new WeakReference<>(owner);
    this.thread = new Thread(() -> tick(ref, ownerRef, resolutionNanos), "weir-clock");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /*
   * The loop holds the clock only for the moment of a reading, and its owner never, so it never keeps
   * an engine alive: when either has been collected, or the time is stopped, the loop ends. Each iteration publishes one
   * fresh reading; a reading never goes below the one before it (readFresh is monotonic).
   */
  private static void tick(WeakReference<EngineClock> ref, WeakReference<Object> owner, long resolutionNanos) {
    while (true) {
      EngineClock clock = ref.get();
      if (clock == null || owner.get() == null) {
        return;
      }
      CoarseTime time = clock.coarseTime();
      if (time == null || time.stopped) {
        return;
      }
      time.publish(clock.readFresh());
      clock = null;
      time = null;
      LockSupport.parkNanos(resolutionNanos);
    }
  }

  /**
   * Publishes {@code reading} unless a newer one is there: the tick thread and calling threads
   * publish fresh readings of one clock concurrently, and one taken earlier may arrive later. The
   * loop ends: each retry follows another thread's successful write of a larger value.
   */
  void publish(long reading) {
    long seen = now;
    while (reading - seen > 0 && !NOW.compareAndSet(this, seen, reading)) {
      seen = now;
    }
  }

  void stop() {
    stopped = true;
    LockSupport.unpark(thread);
  }

  /** Whether the thread still runs; for tests. */
  boolean running() {
    return thread.isAlive();
  }

  /** Waits for the thread to end, at most {@code timeout}; for tests. */
  void join(java.time.Duration timeout) throws InterruptedException {
    thread.join(timeout.toMillis());
  }
}
