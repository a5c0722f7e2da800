package dev.weir.internal.limit;

import dev.weir.Sleeper;
import dev.weir.internal.time.EngineClock;

/**
 * Clocks for the jcstress tests: an {@link EngineClock} over a ticker that reads a fixed instant
 * (the "present" a late thread re-reads), and a sleeper that never sleeps.
 *
 * <p>Every instant is an offset from {@link #T}, a whole number of seconds, so that the window
 * limiter's 100 ms buckets start at {@code T + k * 100 ms}.
 */
final class StressClocks {

  /** The base instant: 10^6 s, on a bucket edge. */
  static final long T = 1_000_000L * 1_000_000_000L;
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;

  /** A sleeper that returns at once: the pacing limiter's waits must not stall an actor. */
  static final Sleeper NO_SLEEP = nanos -> { };

  private StressClocks() {
  }

  /** An engine clock whose ticker always reads {@code present}. */
  static EngineClock fixedAt(long present) {
    return new EngineClock(() -> present, NO_SLEEP);
  }

  /** An engine clock whose ticker always reads {@code present}, telling {@code sleeper} of waits. */
  static EngineClock fixedAt(long present, Sleeper sleeper) {
    return new EngineClock(() -> present, sleeper);
  }

  /** 1 when a {@link FlowLimiter#tryAcquire} result is an admission, else 0. */
  static int admitted(long result) {
    return result >= 0 ? 1 : 0;
  }
}
