package dev.weir.internal.limit;

import dev.weir.Criticality;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.FlowRule;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * {@code grade: threads}: at most {@code count} admitted calls inside at once. Admission is a CAS
 * that increments only below the limit, so the limit holds under any number of threads; a call
 * gives its place back when it completes, or when a later rule refuses it.
 *
 * <p>With a {@code max-queueing-time}, a call over the limit waits for a place instead of being
 * refused at once (a bulkhead that waits): see {@link Waiters} for the queue, its order and its
 * bounds. While calls wait, a new call does not take a freed place ahead of them: it queues behind
 * them (or is refused, when the queue is full), and a freed place is handed to the first waiter.
 */
public final class ConcurrencyLimiter extends FlowLimiter {

  private final int limit;
  private final long maxWaitNanos;
  private final int maxWaiting;
  /** Calls inside, at index {@link #AT}: alone on its cache line, as it is written by every call. */
  private final AtomicLongArray cell;
  /** The calls waiting for a place; null while no rule of this lineage ever let calls wait. */
  private final @Nullable Waiters waiters;
  private static final int AT = 8;

  /** A limit of {@code count} calls inside whose calls never wait (the cluster guard's, tests'). */
  public ConcurrencyLimiter(double count) {
    this((int) count, 0, 0, new AtomicLongArray(2 * AT + 1), null);
  }

  /** The limiter of a {@code threads} rule; waiting calls wait on {@code clock}'s time. */
  public ConcurrencyLimiter(FlowRule rule, EngineClock clock) {
    this((int) rule.count(), waitNanos(rule), rule.waitingBound(), new AtomicLongArray(2 * AT + 1),
        rule.waitingBound() > 0 ? new Waiters(clock) : null);
  }

  private ConcurrencyLimiter(int limit, long maxWaitNanos, int maxWaiting, AtomicLongArray cell,
      @Nullable Waiters waiters) {
    this.limit = limit;
    this.maxWaitNanos = maxWaitNanos;
    this.maxWaiting = maxWaiting;
    this.cell = cell;
    this.waiters = waiters;
  }

  private static long waitNanos(FlowRule rule) {
    return rule.waitingBound() > 0 ? rule.maxQueueingTime().toNanos() : 0;
  }

  /** The same calls inside, under another limit: a changed {@code count} keeps counting them. */
  @Override
  public FlowLimiter withCount(double count) {
    return new ConcurrencyLimiter((int) count, maxWaitNanos, maxWaiting, cell, waiters);
  }

  /**
   * The same calls inside and the same waiting calls, under {@code rule}'s count and waiting bounds:
   * calls already waiting keep their deadlines, and a freed place goes to them first.
   */
  public ConcurrencyLimiter withRule(FlowRule rule, EngineClock clock) {
    Waiters queue = waiters != null ? waiters : rule.waitingBound() > 0 ? new Waiters(clock) : null;
    return new ConcurrencyLimiter((int) rule.count(), waitNanos(rule), rule.waitingBound(), cell, queue);
  }

  @Override
  public long tryAcquire(int permits, long now) {
    return tryAcquire(permits, now, Criticality.CRITICAL);
  }

  @Override
  public long tryAcquire(int permits, long now, Criticality criticality) {
    Waiters queue = waiters;
    boolean waits = maxWaitNanos > 0 && queue != null;
    while (true) {
      long current = cell.get(AT);
      if (current + 1 > limit || (waits && queue.size() > 0)) {
        break; // full, or calls wait ahead of this one
      }
      if (cell.compareAndSet(AT, current, current + 1)) {
        return 0;
      }
    }
    if (!waits) {
      return refused(0);
    }
    return queue.await(this, criticality, now + maxWaitNanos, maxWaiting) ? 0 : refused(0);
  }

  /** A call in shadow mode never waits: it takes a place when one is free, else is counted as refused. */
  @Override
  public long tryAcquireWithoutWaiting(int permits, long now) {
    return tryTake() ? 0 : refused(0);
  }

  @Override
  public long tryAcquireWithoutWaiting(int permits, long now, Criticality criticality) {
    return tryAcquireWithoutWaiting(permits, now);
  }

  /** Takes a place if one is free under this limiter's limit, ignoring waiters; for {@link Waiters}. */
  boolean tryTake() {
    while (true) {
      long current = cell.get(AT);
      if (current + 1 > limit) {
        return false;
      }
      if (cell.compareAndSet(AT, current, current + 1)) {
        return true;
      }
    }
  }

  @Override
  public void refund(int permits, long token) {
    release(permits);
  }

  /**
   * Gives the place back, then hands free places to waiters. The order matters (see
   * {@link Waiters}): the decrement comes before the read of the queue's size.
   */
  @Override
  public void release(int permits) {
    cell.decrementAndGet(AT);
    Waiters queue = waiters;
    if (queue != null && queue.size() > 0) {
      queue.handOff(this);
    }
  }

  /** The calls inside now: never above the limit, as a place is taken only below it. */
  public int inside() {
    return (int) cell.get(AT);
  }

  /** The calls waiting for a place now. */
  public int waiting() {
    Waiters queue = waiters;
    return queue == null ? 0 : queue.size();
  }
}
