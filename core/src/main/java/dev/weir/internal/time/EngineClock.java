package dev.weir.internal.time;

import dev.weir.Sleeper;
import dev.weir.Ticker;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The engine's time: its ticker made monotone, and its sleeper. Every limiter, breaker and bucket
 * of an engine takes its readings from here, and follows the rules below.
 *
 * <h2>The time model of the engine</h2>
 * A call reads the clock once, when it starts, and carries that reading through the chain. Between
 * the reading and a limiter the thread may be descheduled, wait for a lock, or sit out a GC pause,
 * while other threads read later times and are admitted first. So every limiter sees readings out
 * of order; that is normal traffic, and the model has two parts, one for each cause of an old
 * reading:
 * <ol>
 *   <li><b>The clock going back is absorbed here, once.</b> A ticker may step back (a user's
 *       wall-clock ticker, a test). {@link #read} keeps {@code newest}, a recent reading it handed
 *       out (refreshed once per {@link #STEP_NANOS}); a reading below it is re-taken under a lock,
 *       after {@code newest} was published, so a thread that was merely slow reads the present and
 *       passes. Only a fresh reading below {@code newest} is the ticker going back, and the engine
 *       then shifts its {@code skew} so that its time resumes at {@code newest}. So engine time
 *       never goes back by more than {@link #STEP_NANOS} between two readings, whatever the
 *       ticker does, and nothing downstream ever has to tell a backward jump from a late call.
 *   <li><b>A late reading is decided as if it were the newest.</b> Every limiter keeps the newest
 *       time its state was advanced to (the newest bucket, the newest admission, the next free
 *       slot). A reading older than that, by any amount, is late: the call is decided at the
 *       state's newest time (counted into the newest bucket, spaced after the newest admission),
 *       never by rewinding, clearing or restarting the state. So a late call can be refused where
 *       a punctual one would pass, but no limiter ever admits more than its rule allows because a
 *       reading was old. Limiters that wait ({@code queue}, {@code warm-up}) re-read the clock
 *       before they wait or refuse, so a late call does not wait for a slot that has come.
 * </ol>
 * Statistics (which only report) keep their own rule: a late write goes into the bucket of its
 * reading, or is dropped once that bucket has left the window.
 *
 * <p>Waiting is uninterruptible from the caller's point of view: an interrupt ends the wait early,
 * the call is still admitted (its slot is taken), and the thread's interrupt flag is restored.
 */
public final class EngineClock {

  /**
   * How stale {@code newest} may get: it is written at most once per step, so the hot path reads
   * a shared word that rarely changes instead of writing it on every call. It is also the most
   * engine time can go back between two readings.
   */
  static final long STEP_NANOS = 1_000_000;

  private final Ticker ticker;
  private final Sleeper sleeper;
  private final AtomicLong newest;
  /** Added to every ticker reading; grows by the size of each backward jump of the ticker. */
  private volatile long skew;
  /** The coarse time, when the engine reads its ticker on a thread of its own; null when every read reads it. */
  private final @Nullable CoarseTime coarse;

  /** A clock that reads the ticker on every {@link #read}. */
  public EngineClock(Ticker ticker, Sleeper sleeper) {
    this(ticker, sleeper, 0);
  }

  /**
   * A clock over {@code ticker}: with {@code resolutionNanos} 0, every {@link #read} reads the
   * ticker; else a thread of this clock's own reads it every {@code resolutionNanos} and
   * {@link #read} returns the last of those readings ({@link CoarseTime}).
   */
  public EngineClock(Ticker ticker, Sleeper sleeper, long resolutionNanos) {
    this(ticker, sleeper, resolutionNanos, null);
  }

  /**
   * As {@link #EngineClock(Ticker, Sleeper, long)}, the thread of the coarse time ending also when
   * {@code owner} (the engine; null for this clock itself) has been collected.
   */
  public EngineClock(Ticker ticker, Sleeper sleeper, long resolutionNanos, @Nullable Object owner) {
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.newest = new AtomicLong(ticker.read());
    this.coarse = resolutionNanos > 0 ? new CoarseTime(this, owner == null ? this : owner, resolutionNanos) : null;
    if (coarse != null) {
      coarse.start(); // after the field is set: the thread finds the clock's coarse time through it
    }
  }

  public Ticker ticker() {
    return ticker;
  }

  /**
   * Returns the engine time now; see the class comment for what it guarantees. With a coarse time,
   * the last reading its thread took: at most its resolution old while that thread runs on time.
   */
  public long read() {
    CoarseTime time = coarse;
    return time != null ? time.now : readFresh();
  }

  /**
   * As {@link #read}, but with a coarse time every {@value CoarseTime#CALLS_PER_FRESH_READING}th
   * call of a thread reads the ticker and publishes that reading (never lowering the one there):
   * while calls come, engine time moves even if the coarse time's own thread is not scheduled (a
   * machine whose cores are all busy can leave it waiting for a second). What the entry of a call
   * reads, counting the thread's calls in {@code counter}.
   */
  public long read(int counter) {
    CoarseTime time = coarse;
    if (time == null) {
      return readFresh();
    }
    if ((counter & (CoarseTime.CALLS_PER_FRESH_READING - 1)) != 0) {
      return time.now;
    }
    long fresh = readFresh();
    time.publish(fresh);
    return fresh;
  }

  /**
   * Returns the engine time now, read from the ticker whatever the resolution: for the places that
   * re-read the clock before they refuse or wait (a late call, a queue), which decide at the present.
   * Never older than a {@link #read} before it.
   */
  public long readFresh() {
    long now = ticker.read() + skew;
    long seen = newest.get();
    long ahead = now - seen;
    if (ahead >= 0) {
      if (ahead >= STEP_NANOS) {
        newest.compareAndSet(seen, now); // a failure means another thread published a newer one
      }
      return now;
    }
    return readAfterStepBack();
  }

  /**
   * A reading below {@code newest}: either this thread was slow between its reading and its look at
   * {@code newest}, or the ticker went back. A reading taken after looking at {@code newest} tells
   * them apart: a ticker that only moves forward cannot return less than a value it returned
   * before. The order matters: {@code newest} first, then the ticker. Read the other way round, a
   * thread descheduled between the two would find a {@code newest} published after its reading and
   * take its own delay for a backward jump, pushing engine time ahead by that delay. Under the lock,
   * so that one backward jump shifts the skew once.
   */
  private synchronized long readAfterStepBack() {
    long seen = newest.get();
    long now = ticker.read() + skew;
    if (now - seen < 0) {
      skew += seen - now;
      return seen;
    }
    return now;
  }

  /** Stops the thread of a coarse time, if any; readings stay the last one taken. Idempotent. */
  public void close() {
    CoarseTime time = coarse;
    if (time != null) {
      time.stop();
    }
  }

  /** The coarse time of this clock, or null; for its thread. */
  @Nullable CoarseTime coarseTime() {
    return coarse;
  }

  /** The resolution of the coarse time, 0 when every read reads the ticker. */
  public long resolutionNanos() {
    CoarseTime time = coarse;
    return time == null ? 0 : time.resolutionNanos;
  }

  public void sleep(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      sleeper.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
