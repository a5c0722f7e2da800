package dev.weir.internal.cluster;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The one thread of an engine's leases: it visits each {@link LeasedFlowLimiter} that holds a lease
 * with permits beyond its first call's when that lease ends ({@link LeasedFlowLimiter#sweep}), so
 * that what an idle instance did not spend goes back to the store, and a round trip nobody waits
 * for is given up on at its deadline.
 *
 * <p>At most one visit per limiter is scheduled at a time ({@link LeasedFlowLimiter#watched}); a visit
 * that finds more to do schedules the next. Delays are engine-clock nanoseconds read as real time,
 * at least {@link #MIN_DELAY_NANOS}: with a driven ticker the visits merely find nothing to do yet.
 * The thread starts at the first visit and ends after a second without any (so an engine dropped
 * without {@link #close} leaves no thread behind once its leases have ended), and at {@link #close},
 * which also gives back every lease the limiters visited hold.
 */
final class LeaseTimer {

  static final long MIN_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Set<LeasedFlowLimiter> watched = ConcurrentHashMap.newKeySet();
  private @Nullable ScheduledThreadPoolExecutor executor; // guarded by this
  private boolean closed; // guarded by this

  /** Visits {@code limiter} in {@code delayNanos}, unless a visit is scheduled already. */
  void watch(LeasedFlowLimiter limiter, long delayNanos) {
    if (!limiter.watched.compareAndSet(false, true)) {
      return;
    }
    watched.add(limiter);
    schedule(limiter, delayNanos);
  }

  private void schedule(LeasedFlowLimiter limiter, long delayNanos) {
    ScheduledThreadPoolExecutor timer = executor();
    if (timer == null) {
      unwatch(limiter);
      return;
    }
    try {
      timer.schedule(() -> visit(limiter), Math.max(MIN_DELAY_NANOS, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      unwatch(limiter);
    }
  }

  private void visit(LeasedFlowLimiter limiter) {
    long next;
    try {
      next = limiter.sweep();
    } catch (RuntimeException | Error e) {
      next = -1; // a limiter that cannot be visited is left to its leases' own ends in the store
    }
    if (next >= 0) {
      schedule(limiter, next);
      return;
    }
    unwatch(limiter);
    long again = limiter.nextVisit(); // a lease installed while this visit ended found the limiter watched
    if (again >= 0) {
      watch(limiter, again);
    }
  }

  private void unwatch(LeasedFlowLimiter limiter) {
    watched.remove(limiter);
    limiter.watched.set(false);
  }

  private synchronized @Nullable ScheduledThreadPoolExecutor executor() {
    if (closed) {
      return null;
    }
    if (executor == null) {
      ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
        Thread thread = new Thread(task, "weir-cluster-leases");
        thread.setDaemon(true);
        return thread;
      });
      timer.setKeepAliveTime(1, TimeUnit.SECONDS);
      timer.allowCoreThreadTimeOut(true);
      timer.setRemoveOnCancelPolicy(true);
      executor = timer;
    }
    return executor;
  }

  /** Stops visiting, and gives back what the watched limiters' leases did not spend. */
  void close() {
    ScheduledThreadPoolExecutor timer;
    synchronized (this) {
      closed = true;
      timer = executor;
      executor = null;
    }
    if (timer != null) {
      timer.shutdownNow();
    }
    for (LeasedFlowLimiter limiter : watched) {
      try {
        limiter.giveBackAll();
      } catch (RuntimeException | Error e) {
        // best effort: the lease ends on its own in the store
      }
    }
    watched.clear();
  }
}
