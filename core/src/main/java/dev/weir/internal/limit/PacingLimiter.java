package dev.weir.internal.limit;

import dev.weir.internal.time.EngineClock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code queue}: admissions spaced evenly, {@code interval / count} apart, in nanoseconds so that
 * rates above 1000 per second stay exact. A call takes the next free slot (never earlier than now:
 * idle time does not build up a burst) and waits for it, unless the wait would exceed
 * {@code max-queueing-time}; then it is refused with the time until it would have fit.
 *
 * <p>The next free slot is one {@link AtomicLong}; reserving is a CAS, so no two calls get the same
 * slot and waiting happens outside any lock. A reserved slot is not given back when a later rule
 * refuses the call: the gap that leaves is at most one spacing.
 *
 * <p>A call decides on its start time while that lets it through at once; before refusing or
 * waiting it reads the clock again, since another thread may have advanced the schedule with a
 * later reading.
 *
 * <p>Time follows {@link EngineClock}: a late reading (older than the schedule) takes the next free
 * slot like any other, after the fresh reading above; the schedule is never restarted, so no reading,
 * however old, can bring two admissions closer than {@code interval / count}. The cost of one call is
 * at most a day (validation bounds the spacing), so {@code slot + cost} cannot overflow.
 */
public final class PacingLimiter extends FlowLimiter {

  private final double nanosPerPermit;
  private final long maxQueueingNanos;
  private final EngineClock clock;
  private final AtomicLong nextFree;

  public PacingLimiter(long intervalNanos, double count, long maxQueueingNanos, EngineClock clock, long now) {
    this.nanosPerPermit = count == 0 ? Double.POSITIVE_INFINITY : intervalNanos / count;
    this.maxQueueingNanos = maxQueueingNanos;
    this.clock = clock;
    this.nextFree = new AtomicLong(now);
  }

  @Override
  public long tryAcquire(int permits, long now) {
    return acquire(permits, now, true);
  }

  @Override
  public long tryAcquireWithoutWaiting(int permits, long now) {
    return acquire(permits, now, false);
  }

  private long acquire(int permits, long now, boolean waits) {
    if (Double.isInfinite(nanosPerPermit)) {
      return refused(0);
    }
    long cost = cost(permits, nanosPerPermit);
    boolean fresh = false;
    while (true) {
      long next = nextFree.get();
      long slot = next - now < 0 ? now : next;
      long wait = slot - now;
      if (wait > 0 && !fresh) {
        // The call's start time may be older than the schedule another thread just advanced:
        // decide on a fresh reading before refusing or waiting for a slot that has already come.
        now = clock.readFresh();
        fresh = true;
        continue;
      }
      if (wait > maxQueueingNanos) {
        return refused(wait - maxQueueingNanos);
      }
      if (nextFree.compareAndSet(next, slot + cost)) {
        if (waits) {
          clock.sleep(wait);
        }
        return 0;
      }
    }
  }
}
