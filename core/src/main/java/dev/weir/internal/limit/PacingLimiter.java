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
 *
 * <h2>Settling ({@code Entry.settle})</h2>
 * Each call reserves a stretch of the schedule, {@code cost} long, and the stretches never overlap.
 * A call that settles above its estimate reserves its excess too, at the end of the schedule (never
 * before now): the calls after it are moved later by that much. One that settles below gives back
 * the end of its own stretch when nothing was reserved after it yet (its token is where its stretch
 * ends); once later calls were scheduled after it, they keep their place and nothing is given back,
 * since moving the schedule back would lay new stretches over theirs. So stretches still never
 * overlap, and the cost whose stretches start in any span of length {@code L} is at most
 * {@code L / spacing} plus one stretch: one call's estimate or its excess. The schedule runs at
 * most twice {@link #MAX_NANOS} ahead of now: a larger excess keeps the queue shut as long, it does
 * not overflow.
 */
public final class PacingLimiter extends FlowLimiter {

  private final double nanosPerPermit;
  private final long maxQueueingNanos;
  private final EngineClock clock;
  private final AtomicLong nextFree;
  /** The reading the limiter was created at: tokens are the ends of reservations since it, never negative. */
  private final long origin;

  public PacingLimiter(long intervalNanos, double count, long maxQueueingNanos, EngineClock clock, long now) {
    this.nanosPerPermit = count == 0 ? Double.POSITIVE_INFINITY : intervalNanos / count;
    this.maxQueueingNanos = maxQueueingNanos;
    this.clock = clock;
    this.nextFree = new AtomicLong(now);
    this.origin = now;
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
        return refused(Math.min(wait - maxQueueingNanos, 2 * MAX_NANOS));
      }
      if (nextFree.compareAndSet(next, slot + cost)) {
        if (waits) {
          clock.sleep(wait);
        }
        return slot + cost - origin;
      }
    }
  }

  /** Where the schedule's next free slot is, from the reading the limiter was made at; for tests. */
  long scheduled() {
    return nextFree.get() - origin;
  }

  /** See the class comment, "Settling". */
  @Override
  public void settle(long delta, long token, long now) {
    if (Double.isInfinite(nanosPerPermit)) {
      return;
    }
    if (delta < 0) {
      long end = origin + token;
      long back = capped(-delta * nanosPerPermit);
      long earlier = end - back - now < 0 ? now : end - back;
      if (earlier - end < 0) {
        nextFree.compareAndSet(end, earlier); // only while nothing was reserved after the call
      }
      return;
    }
    long excess = capped(delta * nanosPerPermit);
    while (true) {
      long next = nextFree.get();
      long base = next - now < 0 ? now : next;
      long ahead = base - now;
      long moved = base + Math.min(excess, Math.max(0, 2 * MAX_NANOS - ahead)); // saturates, never wraps
      if (nextFree.compareAndSet(next, moved)) {
        return;
      }
    }
  }
}
