package dev.weir.spring.retry;

import dev.weir.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The retry budget of one resource: its first attempts and retries counted over a sliding window,
 * and a retry allowed while the retries of the window, this one included, are at most
 * {@code ratio × first attempts + min-per-second × window seconds}. With a ratio of 0.1 a failing
 * dependency sees at most about 1.1 times its normal load, whatever each caller's own retry
 * policy says; the floor lets a resource with little traffic retry at all.
 *
 * <p>Thread-safe and lock-free; counting a first attempt and deciding a retry allocate nothing but
 * once per bucket period (a tenth of the window). Memory is fixed: ten buckets.
 *
 * <pre>{@code
 * RetryBudget budget = new RetryBudget(weir.ticker(), 0.1, Duration.ofSeconds(10), 1);
 * budget.recordFirstAttempt();          // every call, before its first attempt
 * if (budget.tryAcquireRetry()) { ... } // before each retry; false: do not retry
 * }</pre>
 */
public final class RetryBudget {

  /*
   * The window is BUCKETS buckets of bucketNanos each; a bucket holds the first attempts and retries
   * of one period (ticker reading / bucketNanos). The ring holds a bucket per slot (period mod
   * BUCKETS); a bucket is immutable in its period, and a slot is moved to a newer period by putting
   * a fresh bucket in it (compare-and-set), so counts of a past period never leak into a new one.
   *
   * `latest` is the newest period any caller has used, raised monotonically; every caller works in
   * max(its own reading's period, latest). A caller holding an old reading therefore never decides
   * in a window older than one another caller has already decided in.
   *
   * A retry is decided in the window ending at period p (buckets p-BUCKETS+1 .. p): the caller sums
   * the other buckets, reads the current bucket's retries r, and commits with a compare-and-set of
   * the current bucket's retries from r to r+1, only when the sum plus r plus one is within the
   * allowance. Then it reads `latest` again: if the period moved on meanwhile, it takes its retry
   * back (decrement) and decides again in the new period.
   *
   * Why this never admits more than the allowance in the window of any decision: take a retry
   * committed in period q's window by caller D, and any other retry committed by caller S.
   * - S in the same period: both compare-and-set the same counter, so one of them read the other's
   *   increment before deciding (the counter serialises them).
   * - S in an older period p < q: S compared `latest` after its commit. If S saw latest < q, its
   *   commit came before D raised latest to q, which D did before reading any bucket: D counted S's
   *   retry. If S saw latest >= q, S took its retry back; until then D may have counted it, which
   *   only made D stricter.
   * - Buckets of periods after q exist only once latest > q; D then takes its own retry back.
   * First attempts only raise the allowance, so reading them early or missing one only makes a
   * decision stricter; a first attempt counted into a bucket that has just left the window is lost
   * (stricter again). So for every period q in which a retry was admitted, the retries of the
   * window ending at q are at most the allowance of the first attempts of that window: exact, with
   * no overshoot per thread. Over any span of one window length (not aligned to buckets), the
   * retries are therefore at most ratio x the first attempts of that span and the window before it,
   * plus the floor.
   *
   * Bounds on work: raising `latest` and renewing a slot loop only while another caller moved the
   * same value forward, which happens finitely often before the caller's own period is reached. A
   * retry decision makes at most MAX_TRIES attempts (each lost compare-and-set is another caller's
   * success); after that it refuses, which can only make the budget stricter than it is.
   */

  /** Buckets of the sliding window. */
  static final int BUCKETS = 10;

  /** Attempts of one decision before it gives up (and refuses a retry). */
  static final int MAX_TRIES = 64;

  /** What the period-returning methods answer when nothing was counted. */
  static final long NONE = Long.MIN_VALUE;

  /** The shortest window: one millisecond per bucket. */
  public static final Duration MIN_WINDOW = Duration.ofMillis(BUCKETS);

  /** The longest window. */
  public static final Duration MAX_WINDOW = Duration.ofDays(1);

  private static final Runnable NO_PAUSE = () -> { };

  private final Ticker ticker;
  private final long bucketNanos;
  private final double ratio;
  private final double floor;
  private final AtomicReferenceArray<Bucket> ring = new AtomicReferenceArray<>(BUCKETS);
  private final AtomicLong latest = new AtomicLong(Long.MIN_VALUE);
  private final Runnable beforeCommit;

  /**
   * Creates a budget.
   *
   * @param ticker the time source (the engine's, {@code weir.ticker()})
   * @param ratio retries allowed per first attempt over the window, finite and at least 0
   * @param window the sliding window, from {@link #MIN_WINDOW} to {@link #MAX_WINDOW}
   * @param minPerSecond retries allowed per second of the window besides the ratio, finite and at least 0
   * @throws IllegalArgumentException when a value is out of range
   */
  public RetryBudget(Ticker ticker, double ratio, Duration window, double minPerSecond) {
    this(ticker, ratio, window, minPerSecond, NO_PAUSE);
  }

  /** As the public constructor, with a hook run just before a retry is committed; for tests of interleavings. */
  RetryBudget(Ticker ticker, double ratio, Duration window, double minPerSecond, Runnable beforeCommit) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(window, "window");
    if (!(ratio >= 0) || Double.isInfinite(ratio)) {
      throw new IllegalArgumentException("ratio must be a finite number of at least 0, was " + ratio);
    }
    if (!(minPerSecond >= 0) || Double.isInfinite(minPerSecond)) {
      throw new IllegalArgumentException("minPerSecond must be a finite number of at least 0, was " + minPerSecond);
    }
    if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
      throw new IllegalArgumentException("window must be from " + MIN_WINDOW + " to " + MAX_WINDOW + ", was " + window);
    }
    this.bucketNanos = window.toNanos() / BUCKETS;
    this.ratio = ratio;
    this.floor = minPerSecond * (bucketNanos * (double) BUCKETS) / 1e9;
    this.beforeCommit = beforeCommit;
  }

  /** Counts a first attempt: call it once per call, whether or not the call is retried later. */
  public void recordFirstAttempt() {
    recordFirstAttemptPeriod();
  }

  /**
   * Takes a retry from the budget if the window has room for it.
   *
   * @return true when the retry may be made (it is counted), false when it would exceed the budget
   */
  public boolean tryAcquireRetry() {
    return tryAcquireRetryPeriod() != NONE;
  }

  /**
   * Tells, without taking anything, whether a retry would be allowed now. Another caller may take
   * the room before this caller does: use it to give up early, and {@link #tryAcquireRetry()} to
   * retry.
   */
  public boolean hasRoom() {
    long period = currentPeriod();
    Bucket current = bucket(period);
    if (current == null) {
      return false;
    }
    return sum(period, current, false) + current.retries() + 1 <= allowance(sum(period, current, true) + current.firsts());
  }

  /** Returns the first attempts counted in the current window. */
  public long firstAttempts() {
    long period = currentPeriod();
    Bucket current = bucket(period);
    return current == null ? 0 : sum(period, current, true) + current.firsts();
  }

  /** Returns the retries counted in the current window. */
  public long retries() {
    long period = currentPeriod();
    Bucket current = bucket(period);
    return current == null ? 0 : sum(period, current, false) + current.retries();
  }

  /** Returns the window this budget counts over (a whole number of bucket periods). */
  public Duration window() {
    return Duration.ofNanos(bucketNanos * BUCKETS);
  }

  /** Counts a first attempt and returns the period it was counted in, or {@link #NONE} if it was dropped. */
  long recordFirstAttemptPeriod() {
    for (int tries = 0; tries < MAX_TRIES; tries++) {
      long period = currentPeriod();
      Bucket current = bucket(period);
      if (current != null) {
        Bucket.FIRSTS.incrementAndGet(current);
        return period;
      }
    }
    return NONE;
  }

  /** Decides a retry; returns the period it was counted in, or {@link #NONE} when it is refused. */
  long tryAcquireRetryPeriod() {
    for (int tries = 0; tries < MAX_TRIES; tries++) {
      long period = currentPeriod();
      Bucket current = bucket(period);
      if (current == null) {
        continue;
      }
      long firsts = 0;
      long retries = 0;
      for (int slot = 0; slot < BUCKETS; slot++) {
        Bucket other = ring.get(slot);
        if (other != null && other != current && other.period > period - BUCKETS && other.period < period) {
          firsts += other.firsts();
          retries += other.retries();
        }
      }
      long mine = current.retries();
      if (retries + mine + 1 > allowance(firsts + current.firsts())) {
        if (latest.get() == period) {
          return NONE;
        }
        continue;
      }
      beforeCommit.run();
      if (!Bucket.RETRIES.compareAndSet(current, mine, mine + 1)) {
        continue;
      }
      if (latest.get() == period) {
        return period;
      }
      Bucket.RETRIES.decrementAndGet(current);
    }
    return NONE;
  }

  /** Returns the first attempts (or the retries) of the window's buckets before {@code current}. */
  private long sum(long period, Bucket current, boolean firsts) {
    long sum = 0;
    for (int slot = 0; slot < BUCKETS; slot++) {
      Bucket other = ring.get(slot);
      if (other != null && other != current && other.period > period - BUCKETS && other.period < period) {
        sum += firsts ? other.firsts() : other.retries();
      }
    }
    return sum;
  }

  private long allowance(long firsts) {
    return (long) Math.floor(ratio * firsts + floor);
  }

  /** The period to work in: that of the ticker's reading, or the newest one used, whichever is later. */
  private long currentPeriod() {
    long period = Math.floorDiv(ticker.read(), bucketNanos);
    long seen = latest.get();
    while (period > seen) {
      if (latest.compareAndSet(seen, period)) {
        return period;
      }
      seen = latest.get();
    }
    return seen;
  }

  /** Returns the bucket of {@code period}, renewing its slot if it holds an older one; null when the slot is past it. */
  private @Nullable Bucket bucket(long period) {
    int slot = (int) Math.floorMod(period, (long) BUCKETS);
    while (true) {
      Bucket held = ring.get(slot);
      if (held != null && held.period >= period) {
        return held.period == period ? held : null;
      }
      Bucket fresh = new Bucket(period);
      if (ring.compareAndSet(slot, held, fresh)) {
        return fresh;
      }
    }
  }

  /** The counts of one period. */
  private static final class Bucket {

    static final AtomicLongFieldUpdater<Bucket> FIRSTS = AtomicLongFieldUpdater.newUpdater(Bucket.class, "firsts");
    static final AtomicLongFieldUpdater<Bucket> RETRIES = AtomicLongFieldUpdater.newUpdater(Bucket.class, "retries");

    final long period;
    private volatile long firsts;
    private volatile long retries;

    Bucket(long period) {
      this.period = period;
    }

    long firsts() {
      return firsts;
    }

    long retries() {
      return retries;
    }
  }
}
