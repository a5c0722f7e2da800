package dev.weir.internal.limit;

import dev.weir.internal.time.EngineClock;
/**
 * {@code exact: true}: never more than {@code count} admissions in any half-open span
 * {@code [t, t + interval)}, for every real {@code t}, not only at bucket edges.
 *
 * <p>It keeps the times of the admissions of the last {@code interval}, oldest first, in a ring. A
 * call is admitted when, after dropping the times that are {@code interval} old or more, fewer than
 * {@code count - permits + 1} remain; then the new admission and every admission that could share a
 * span with it are in the ring, so no span can hold more than {@code count}. Check and record happen
 * under this object's lock; the critical section is a few array accesses.
 *
 * <h2>Time (see {@link EngineClock})</h2>
 * Decisions are made at non-decreasing times: a reading older than the newest time this limiter has
 * decided at is late, and is replaced by a fresh reading taken under the lock (clamped to that
 * newest time should the ticker itself have stepped back). Dropping old times is only sound because
 * of this: a time dropped at {@code t} could still share a span with an admission at an earlier
 * reading. The ring is never cleared.
 *
 * <h2>Memory</h2>
 * The ring holds only the admissions of the last {@code interval}: it starts at
 * {@value #INITIAL_CAPACITY} entries, doubles up to {@code count} when traffic fills it, and halves
 * when it is mostly empty. So a rule with a large {@code count} split by caller origin
 * ({@code limit-app: other}) costs memory in proportion to the calls it actually admitted in the
 * last interval, not {@code count} per origin.
 *
 * <h2>Settling ({@code Entry.settle})</h2>
 * An admission's token is its time (since the limiter was made). A call that settles below its
 * estimate removes that many of the times it was admitted at (those still in the ring), after
 * lowering a debt owed. One that settles above it records the excess as admissions at the settle's
 * time as far as the ring has room below {@code count}, and owes the rest; an admission first takes
 * what is owed the same way, and is refused while some is left. No span ever holds more than
 * {@code count}: here the bound of {@code Entry.settle} holds without the excess.
 */
public final class ExactLimiter extends FlowLimiter {

  static final int INITIAL_CAPACITY = 16;

  private final long intervalNanos;
  private final int count;
  private final EngineClock clock;
  private long[] times;
  private int oldest;
  private int size;
  /** The newest time decided at (at first, the reading the limiter was created at). */
  private long latest;
  /** The reading the limiter was created at: tokens are times since it, never negative. */
  private final long origin;
  /** Permits owed by calls that settled above their estimate; see "Settling". */
  private long owed;

  public ExactLimiter(long intervalNanos, double count, EngineClock clock, long now) {
    this.intervalNanos = intervalNanos;
    this.count = (int) count;
    this.clock = clock;
    this.times = new long[Math.min(this.count, INITIAL_CAPACITY)];
    this.latest = now;
    this.origin = now;
  }

  @Override
  public synchronized long tryAcquire(int permits, long now) {
    if (permits > count) {
      return refused(0);
    }
    if (now - latest < 0) {
      now = clock.readFresh(); // late: decide at the present
      if (now - latest < 0) {
        now = latest; // the ticker stepped back: stay at the newest time decided on
      }
    }
    latest = now;
    dropOlderThan(now);
    if (owed > 0) {
      owed -= record(Math.min(owed, count - size), now);
      if (owed > 0) {
        return refused(intervalNanos - (now - times[oldest]));
      }
    }
    if (size + permits > count) {
      long blocking = times[index(size + permits - count - 1)];
      return refused(intervalNanos - (now - blocking));
    }
    if (size + permits > times.length) {
      resize(Math.min(count, Math.max(times.length * 2, size + permits)));
    } else if (times.length > INITIAL_CAPACITY && size + permits < times.length / 4) {
      resize(Math.max(INITIAL_CAPACITY, times.length / 2));
    }
    for (int i = 0; i < permits; i++) {
      times[index(size)] = now;
      size++;
    }
    return now - origin;
  }

  private void dropOlderThan(long now) {
    while (size > 0 && now - times[oldest] >= intervalNanos) {
      oldest = next(oldest);
      size--;
    }
  }

  /** Records {@code permits} admissions at {@code now} ({@code size + permits <= count}); returns them. */
  private int record(long permits, long now) {
    int n = (int) permits;
    if (n <= 0) {
      return 0;
    }
    if (size + n > times.length) {
      resize(Math.min(count, Math.max(times.length * 2, size + n)));
    }
    for (int i = 0; i < n; i++) {
      times[index(size)] = now;
      size++;
    }
    return n;
  }

  /** See the class comment, "Settling". */
  @Override
  public synchronized void settle(long delta, long token, long now) {
    if (delta < 0) {
      long left = -delta;
      long paid = Math.min(owed, left);
      owed -= paid;
      left -= paid;
      if (left > 0) {
        remove(left, origin + token);
      }
      return;
    }
    if (now - latest < 0) {
      now = latest; // decisions stay at non-decreasing times
    }
    latest = now;
    dropOlderThan(now);
    if (owed == 0) {
      delta -= record(Math.min(delta, count - size), now);
    }
    owed = saturatedAdd(owed, delta);
    FlowLimiter latest = latest();
    if (latest != this) {
      latest.carried(this); // the rule's count changed while this settled: the debt goes on with it
    }
  }

  /** Removes up to {@code permits} of the admissions recorded at {@code time}; the ring stays in order. */
  private void remove(long permits, long time) {
    int last = size - 1;
    while (last >= 0 && times[index(last)] - time > 0) {
      last--;
    }
    int removed = 0;
    while (removed < permits && last - removed >= 0 && times[index(last - removed)] == time) {
      removed++;
    }
    for (int from = last + 1; from < size; from++) {
      times[index(from - removed)] = times[index(from)];
    }
    size -= removed;
  }

  /** Admissions recorded in the interval before the newest decision; for tests. */
  synchronized int inside() {
    int inside = 0;
    for (int i = size - 1; i >= 0 && latest - times[index(i)] < intervalNanos; i--) {
      inside++;
    }
    return inside;
  }

  /** Permits owed by settled calls and not taken yet; for tests. */
  synchronized long owed() {
    return owed;
  }

  @Override
  protected void carried(FlowLimiter previous) {
    if (previous instanceof ExactLimiter exact) {
      long moved;
      synchronized (exact) {
        moved = exact.owed;
        exact.owed = 0;
      }
      synchronized (this) {
        owed = saturatedAdd(owed, moved);
      }
    }
  }

  /**
   * The count less the admissions of the last interval before {@code now}, and the time until
   * enough of them have aged out for one permit more. With {@code inside} admissions in the
   * interval and {@code remaining = max(0, count - inside)}, {@code remaining + 1} calls of one
   * permit fit once the oldest {@code max(0, inside - count) + 1} of them are {@code interval} old:
   * the answer is when the last of those is, the same time {@link #tryAcquire} gives a refused call
   * of one permit. A reading older than the newest decision is read at that decision (the times
   * before it cannot be dropped yet), and the time is still measured from {@code now}.
   */
  @Override
  public synchronized boolean readQuota(long now, long[] out) {
    long at = now - latest < 0 ? latest : now;
    int inside = 0;
    for (int i = size - 1; i >= 0; i--) {
      if (at - times[index(i)] >= intervalNanos) {
        break;
      }
      inside++;
    }
    out[0] = Math.max(0, count - inside);
    out[1] = 0;
    if (inside > 0 && count > 0) {
      int needed = Math.max(0, inside - count) + 1;
      long blocking = times[index(size - inside + needed - 1)];
      out[1] = blocking + intervalNanos - now;
    }
    return true;
  }

  /** Entries the ring has room for now; for tests of its memory bound. */
  synchronized int capacity() {
    return times.length;
  }

  private void resize(int capacity) {
    long[] resized = new long[capacity];
    for (int i = 0; i < size; i++) {
      resized[i] = times[index(i)];
    }
    times = resized;
    oldest = 0;
  }

  private int index(int fromOldest) {
    int i = oldest + fromOldest;
    return i >= times.length ? i - times.length : i;
  }

  private int next(int i) {
    return i + 1 == times.length ? 0 : i + 1;
  }
}
