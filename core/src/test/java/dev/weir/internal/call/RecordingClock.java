package dev.weir.internal.call;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import java.util.concurrent.locks.LockSupport;

/**
 * The real clock ({@code System.nanoTime()}) and a real sleeper, remembering per thread the last
 * reading the engine took and, when it slept, the time it slept until. {@link #admittedAt()} right
 * after an admission is the engine's own time for that admission: the reading its limiters decided
 * on (a late call re-reads, see {@link EngineClock}), or the slot a queued call waited for.
 */
public final class RecordingClock implements Ticker, Sleeper {

  private final ThreadLocal<long[]> last = ThreadLocal.withInitial(() -> new long[3]);

  /** Call before each attempt: forgets the previous call's sleep. */
  public void startCall() {
    last.get()[1] = Long.MIN_VALUE;
  }

  @Override
  public long read() {
    long now = System.nanoTime();
    long[] mine = last.get();
    mine[2] = mine[0];
    mine[0] = now;
    return now;
  }

  @Override
  public void sleep(long nanos) {
    long[] mine = last.get();
    long until = mine[0] + nanos;
    mine[1] = until;
    for (long left = nanos; left > 0; left = until - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  /** The engine's time of the admission this thread just got. */
  public long admittedAt() {
    long[] mine = last.get();
    return mine[1] != Long.MIN_VALUE ? mine[1] : mine[0];
  }

  /**
   * The same for a rule that may queue: such a call reads the clock once more after its slot is
   * decided (its response time starts there), so without a wait the slot is the reading before.
   */
  public long queuedAdmittedAt() {
    long[] mine = last.get();
    return mine[1] != Long.MIN_VALUE ? mine[1] : mine[2];
  }
}
