package dev.weir.benchmarks.accuracy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

/** Drives one engine through one trace and collects the admission timestamps. */
final class Runner {

  /** Runs repeated after a {@link Engine.ClockSlipped}, at most. */
  static final int MAX_TRIES = 5;

  private Runner() {
  }

  /**
   * The outcome of one run.
   *
   * @param admissions when each admitted call proceeded (trace nanoseconds; arrival + wait), ascending
   * @param attempts calls made
   * @param tries runs it took (more than 1 after a clock slip)
   */
  record Result(long[] admissions, long attempts, int tries) {
  }

  static Result run(Engine engine, Trace trace, int limit, long intervalNanos) {
    for (int tries = 1; ; tries++) {
      try (Engine.Run run = engine.start(limit, intervalNanos)) {
        long[] admissions = trace.threads() == 1 ? single(run, trace) : concurrent(run, trace);
        Arrays.sort(admissions);
        return new Result(admissions, trace.attempts(), tries);
      } catch (Engine.ClockSlipped slipped) {
        if (tries == MAX_TRIES) {
          throw new IllegalStateException(engine.label() + " on trace " + trace.id() + ": " + slipped.getMessage()
              + " in each of " + MAX_TRIES + " runs", slipped);
        }
      }
    }
  }

  private static long[] single(Engine.Run run, Trace trace) {
    LongList admitted = new LongList();
    long[] steps = trace.stepNanos();
    int[] attempts = trace.attemptsPerThread();
    for (int s = 0; s < steps.length; s++) {
      long t = steps[s];
      run.at(t);
      for (int k = 0; k < attempts[s]; k++) {
        long wait = run.attempt();
        if (wait >= 0) {
          admitted.add(t + wait);
        }
      }
      run.afterStep();
    }
    return admitted.toArray();
  }

  /**
   * Every thread makes its calls of a step, then waits at a barrier; the barrier's action (run by
   * the last thread to arrive, before any is released) ends the step and moves the clock to the
   * next one. So the clock is frozen while calls are in progress, and every call of a step reads
   * the same instant.
   */
  private static long[] concurrent(Engine.Run run, Trace trace) {
    long[] steps = trace.stepNanos();
    int[] attempts = trace.attemptsPerThread();
    int threads = trace.threads();
    AtomicInteger next = new AtomicInteger();
    CyclicBarrier barrier = new CyclicBarrier(threads, () -> {
      int s = next.getAndIncrement();
      if (s > 0) {
        run.afterStep();
      }
      if (s < steps.length) {
        run.at(steps[s]);
      }
    });
    LongList[] admitted = new LongList[threads];
    List<Throwable> failures = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      LongList mine = admitted[i] = new LongList();
      Thread worker = new Thread(() -> {
        try {
          for (int s = 0; s < steps.length; s++) {
            barrier.await();
            long t = steps[s];
            for (int k = 0; k < attempts[s]; k++) {
              long wait = run.attempt();
              if (wait >= 0) {
                mine.add(t + wait);
              }
            }
          }
          barrier.await();
        } catch (BrokenBarrierException | InterruptedException ignored) {
          // another thread failed (or the barrier action did): its failure is the one reported
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
          // A thread waiting at the barrier, or reaching it later, stops at once.
          for (Thread other : workers) {
            if (other != Thread.currentThread()) {
              other.interrupt();
            }
          }
        }
      }, "accuracy-" + trace.id() + "-" + i);
      worker.setDaemon(true);
      workers.add(worker);
    }
    workers.forEach(Thread::start);
    for (Thread worker : workers) {
      try {
        worker.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    if (!failures.isEmpty()) {
      Throwable first = failures.get(0);
      if (first instanceof Engine.ClockSlipped slipped) {
        throw slipped;
      }
      throw new IllegalStateException("a calling thread failed", first);
    }
    LongList all = new LongList();
    for (LongList list : admitted) {
      all.addAll(list);
    }
    return all.toArray();
  }

  /** A growable array of longs. */
  static final class LongList {
    private long[] values = new long[256];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    void addAll(LongList other) {
      for (int i = 0; i < other.size; i++) {
        add(other.values[i]);
      }
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
