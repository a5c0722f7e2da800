package dev.weir.internal.cluster;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Renewal scheduling: the one thread of an engine that sends its leases' renewals ahead of time.
 *
 * <p><b>Why a thread of its own.</b> A call that crosses a lease's renewal mark used to send the
 * renewal itself, and the store's client (Lettuce) then needs its I/O thread to write the request and
 * to read the answer. With more calling threads than cores, each busy spending from the lease, the
 * caller that sent it and the I/O thread wait their turn behind the others, and the answer comes
 * after the lease in hand ran out: measured on 2 cores with 16 threads, the mean round trip was
 * 2-7 ms against a block sized for 2.5 ms. Now the call only hands its limiter to this thread (a
 * queue offer and an unpark, once per lease), which sleeps otherwise and so is scheduled promptly
 * when woken, and which reads the engine time for the request itself ({@code sentAt}: later than
 * the call's, so the lease ends no later than the store's). It is a platform thread of maximum
 * priority (the JVM applies priorities only where the OS lets it: not on Linux by default), a daemon,
 * started at the first renewal and stopped by {@link #close} (the engine's close): no thread outlives
 * its engine, and none is shared between engines.
 *
 * <p>What remains of the round trip is covered instead of avoided: the time from wanting a renewal to
 * installing its answer is measured ({@link RoundTripTimes}) and leases are renewed that much earlier
 * ({@link Lease}).
 *
 * <p><b>Races.</b> A lease is handed over at most once ({@link Lease#claimRenewal}). The thread sends
 * only if no round trip is in flight and no lease renewed ahead waits ({@link LeasedFlowLimiter#renewQueued}):
 * a call that found the lease empty meanwhile and started its own round trip wins, and the queued
 * renewal is dropped; a renewal that arrives while the lease in hand still has permits waits as the
 * next lease and is never added to it. A limiter handed over after {@link #close} is not renewed.
 */
final class LeaseRenewer {

  static final String THREAD_NAME = "weir-cluster-renewals";

  private final Queue<LeasedFlowLimiter> queue = new ConcurrentLinkedQueue<>();
  private volatile @Nullable Thread thread; // written under this
  private volatile boolean closed;

  /** Hands {@code limiter}'s renewal to the thread; false (nothing done) once closed. */
  boolean renew(LeasedFlowLimiter limiter) {
    if (closed) {
      return false;
    }
    queue.offer(limiter);
    Thread renewing = thread;
    if (renewing == null) {
      renewing = start();
      if (renewing == null) {
        queue.remove(limiter);
        return false;
      }
    }
    LockSupport.unpark(renewing);
    return true;
  }

  private synchronized @Nullable Thread start() {
    if (closed) {
      return null;
    }
    if (thread == null) {
      Thread started = new Thread(this::run, THREAD_NAME);
      started.setDaemon(true);
      started.setPriority(Thread.MAX_PRIORITY);
      thread = started;
      started.start();
    }
    return thread;
  }

  private void run() {
    while (!closed) {
      LeasedFlowLimiter limiter = queue.poll();
      if (limiter == null) {
        LockSupport.park(this);
        continue;
      }
      try {
        limiter.renewQueued();
      } catch (RuntimeException | Error e) {
        // a renewal that cannot be sent is a lease that runs out: the calls then start their own round trip
      }
    }
    queue.clear();
  }

  /** The thread, once started; for tests. */
  synchronized @Nullable Thread thread() {
    return thread;
  }

  /** Stops the thread; renewals handed over later are not sent. Waits for the thread to end. */
  void close() {
    Thread renewing;
    synchronized (this) {
      closed = true;
      renewing = thread;
    }
    if (renewing != null && renewing != Thread.currentThread()) {
      LockSupport.unpark(renewing);
      try {
        renewing.join(TimeUnit.SECONDS.toMillis(5)); // bounded: a client whose lease() blocks holds it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
