package dev.weir.internal.cluster;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The recent lease round trips of an engine's store, from the moment a renewal was wanted (a call
 * crossed a lease's renewal mark) to the moment its answer was installed, in engine nanoseconds; for
 * every leased limiter of the engine, which share the one store and connection.
 *
 * <p>Bounded: the last {@link #SIZE} round trips, in a ring. {@link #high} is the largest of them:
 * at least their 98.4th percentile, a high quantile that is exact to compute (no interpolation), that
 * forgets an outlier after {@link #SIZE} more round trips, and errs on the safe side (renewing a bit
 * earlier costs a lease that follows with a little less of its validity left, never a call that
 * waits). Writers (the threads that install answers) and readers race without locks: a reader may
 * miss the newest sample or see a slot between two writers; either way it reads round trips that
 * happened.
 */
final class RoundTripTimes {

  static final int SIZE = 64;

  private final AtomicLongArray samples = new AtomicLongArray(SIZE);
  private final AtomicInteger next = new AtomicInteger();

  /** Records one round trip of {@code nanos} (a negative one, from a late reading, as 0). */
  void record(long nanos) {
    samples.set(Math.floorMod(next.getAndIncrement(), SIZE), Math.max(0, nanos));
  }

  /** The largest of the last {@link #SIZE} round trips; 0 before the first. */
  long high() {
    long high = 0;
    for (int i = 0; i < SIZE; i++) {
      high = Math.max(high, samples.get(i));
    }
    return high;
  }
}
