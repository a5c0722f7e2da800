package dev.weir.internal.limit;

import dev.weir.internal.time.EngineClock;
/**
 * {@code warm-up} and {@code warm-up-queue}: a token bucket whose rate starts at
 * {@code count / cold-factor} after an idle period and rises to {@code count} over
 * {@code warm-up-period}, in the manner of Guava's {@code SmoothWarmingUp}.
 *
 * <h2>The model</h2>
 * The limiter stores unused permits while idle, up to {@code maxPermits}. The cost of taking a
 * stored permit (the spacing it imposes on the next call) depends on how many are stored: below
 * {@code threshold} it is the stable spacing {@code s = interval / count}; above it, it grows
 * linearly up to the cold spacing {@code c = s * coldFactor} at {@code maxPermits}. The sizes are
 * chosen so that draining from full to {@code threshold} takes exactly {@code warm-up-period}
 * (the trapezoid under the spacing curve has that area), and so that refilling from empty to full
 * while idle also takes {@code warm-up-period}:
 * <pre>
 *   threshold  = warmUp / (2 s)
 *   maxPermits = threshold + 2 warmUp / (s + c)
 *   slope      = (c - s) / (maxPermits - threshold)
 * </pre>
 * A fresh limiter is full, so it starts cold.
 *
 * <h2>Admission</h2>
 * Like Guava, a call pays for its permits by pushing {@code nextFree} forward: the call itself goes
 * at {@code nextFree} (at once when that has passed), and the one after it waits for its cost. With
 * {@code reject} a call is refused unless {@code nextFree <= now}; with {@code warm-up-queue} it may
 * wait up to {@code max-queueing-time}. The state is two numbers updated together, so it is guarded
 * by this object's lock; waiting happens outside it.
 *
 * <h2>Settling ({@code Entry.settle})</h2>
 * As for {@code queue} ({@link PacingLimiter}): a call that settles above its estimate pushes
 * {@code nextFree} on by its excess at the stable spacing (from now, when the schedule is idle,
 * storing the idle permits first as an admission would); one that settles below moves
 * {@code nextFree} back by the unused permits at the stable spacing, never before now, and only
 * while no call was scheduled after it (its token is the {@code nextFree} it left). The schedule
 * runs at most twice {@link #MAX_NANOS} ahead of now.
 */
public final class WarmUpLimiter extends FlowLimiter {

  private final double stableNanos;
  private final double thresholdPermits;
  private final double maxPermits;
  private final double slope;
  private final double coolDownNanosPerPermit;
  private final long maxQueueingNanos;
  private final EngineClock clock;
  private final double coldNanos;

  private double storedPermits;
  private long nextFree;
  /** The reading the limiter was created at: tokens are schedule times since it, never negative. */
  private final long origin;

  public WarmUpLimiter(long intervalNanos, double count, long warmUpNanos, int coldFactor, long maxQueueingNanos,
      EngineClock clock, long now) {
    this.stableNanos = count == 0 ? Double.POSITIVE_INFINITY : intervalNanos / count;
    this.coldNanos = stableNanos * coldFactor;
    this.thresholdPermits = 0.5 * warmUpNanos / stableNanos;
    this.maxPermits = thresholdPermits + 2.0 * warmUpNanos / (stableNanos + coldNanos);
    this.slope = (coldNanos - stableNanos) / (maxPermits - thresholdPermits);
    this.coolDownNanosPerPermit = warmUpNanos / maxPermits;
    this.maxQueueingNanos = maxQueueingNanos;
    this.clock = clock;
    this.storedPermits = maxPermits;
    this.nextFree = now;
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
    if (Double.isInfinite(stableNanos)) {
      return refused(0);
    }
    long wait;
    long token;
    synchronized (this) {
      long ahead = nextFree - now;
      if (ahead > 0) {
        // The call's start time may be older than the schedule another thread just advanced (a late
        // reading, see EngineClock): decide on a fresh one. The schedule is never restarted.
        now = clock.readFresh();
        ahead = nextFree - now;
      }
      if (ahead < 0) {
        storedPermits = Math.min(maxPermits, storedPermits + (-ahead) / coolDownNanosPerPermit);
        nextFree = now;
        ahead = 0;
      }
      if (ahead > maxQueueingNanos) {
        return refused(ahead - maxQueueingNanos);
      }
      double fromStore = Math.min(permits, storedPermits);
      double cost = costOfStored(storedPermits, fromStore) + (permits - fromStore) * stableNanos;
      storedPermits -= fromStore;
      nextFree += capped(cost);
      wait = ahead;
      token = nextFree - origin;
    }
    if (waits) {
      clock.sleep(wait);
    }
    return token;
  }

  /** See the class comment, "Settling". */
  @Override
  public synchronized void settle(long delta, long token, long now) {
    if (Double.isInfinite(stableNanos)) {
      return;
    }
    if (delta < 0) {
      long end = origin + token;
      long back = end - capped(-delta * stableNanos);
      long earlier = back - now < 0 ? now : back;
      if (nextFree == end && earlier - end < 0) { // only while nothing was scheduled after the call
        nextFree = earlier;
      }
      return;
    }
    long ahead = nextFree - now;
    if (ahead < 0) {
      storedPermits = Math.min(maxPermits, storedPermits + (-ahead) / coolDownNanosPerPermit);
      nextFree = now;
      ahead = 0;
    }
    nextFree += Math.min(capped(delta * stableNanos), Math.max(0, 2 * MAX_NANOS - ahead));
  }

  /** The area under the spacing curve between {@code stored - take} and {@code stored} permits. */
  private double costOfStored(double stored, double take) {
    double aboveThreshold = Math.max(0, stored - thresholdPermits);
    double cost = 0;
    if (aboveThreshold > 0) {
      double fromAbove = Math.min(aboveThreshold, take);
      double high = stableNanos + aboveThreshold * slope;
      double low = stableNanos + (aboveThreshold - fromAbove) * slope;
      cost = fromAbove * (high + low) / 2;
      take -= fromAbove;
    }
    return cost + take * stableNanos;
  }

  /** Where the schedule's next free slot is, from the reading the limiter was made at; for tests. */
  synchronized long scheduled() {
    return nextFree - origin;
  }

  /** Returns the permits stored now; for tests and diagnostics. */
  synchronized double storedPermits() {
    return storedPermits;
  }
}
