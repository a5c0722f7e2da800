package dev.weir.internal.limit;

import dev.weir.Criticality;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code grade: adaptive}: a concurrency limit that finds the resource's capacity from the latency
 * and throughput of its own completed calls, within {@code [min-limit, max-limit]}, and that sheds
 * the lowest {@link Criticality} first when it binds.
 *
 * <h2>What it aims at</h2>
 * A resource serves calls with some parallelism (workers, cores, connections). Below its <em>knee</em>
 * K, the calls inside at once, each call takes its no-load latency S and throughput grows with the
 * calls inside; above it, throughput stays at its peak μ = K / S and every further call waits in a
 * queue, so latency grows as N / μ for N calls inside (Little's law, N = X R for throughput X and
 * mean latency R). The limit aims at K (1 + {@value AdaptiveController#HEADROOM}) calls inside when
 * demand exceeds capacity: peak throughput, a queue of a few calls, latency close to S. When demand
 * is below capacity it stays out of the way: well above the calls inside, so that it refuses nothing.
 *
 * <h2>The signals</h2>
 * Time is divided into <em>rounds</em> of at least {@value AdaptiveController#MIN_SAMPLES} completed
 * calls and ten times the baseline (100 ms to 10 s). A round yields R, the mean latency of its
 * completed calls; X, their number over its length; N = X R, the mean calls inside; whether the limit
 * refused a call in it (it <em>bound</em>); the most calls inside at an admission; and which
 * criticalities met the limit. A refused call never reaches the limit's completion, so it cannot
 * teach it anything (Gradient2 learned from dropped requests, Netflix concurrency-limits #176). A
 * cancelled call ({@code Entry.cancel()}) has no outcome and gives no sample, unless an error was
 * recorded before the cancel: then it failed (the call decides that, not the limiter). A failed call gives a
 * sample only when it took longer than the baseline: a fast failure says nothing about capacity,
 * and counting it would make the resource look faster, while a slow one is evidence of a queue.
 * The baseline B estimates S.
 *
 * <h2>The update rule</h2>
 * <ul>
 *   <li><b>Bound round:</b> the next limit holds the calls inside at the knee estimate
 *       T = X B (1 + {@value AdaptiveController#HEADROOM}), keeping what lay between the limit in
 *       force and N (the reserves of higher criticalities, the gaps between a completion and the
 *       next admission): L' = T + max(0, L - N), and no less than L / 2 nor more than 2 L. As a
 *       gradient, with q = R / B: T = N (1 + HEADROOM) / q. Above the knee X is μ whatever L is, so
 *       T = μ B (1 + HEADROOM), the knee, in one step: after capacity halves, the round that sees the
 *       new throughput sets the new limit (a fast decrease needs no other rule). Below it X = N / S, so
 *       T = N (1 + HEADROOM) B / S: a proportional increase by HEADROOM per round while the latency
 *       stays at the baseline, until the knee, where throughput stops growing with it. A round whose
 *       R is at most B, with the gradient smoothed over the bound rounds (weight
 *       {@value AdaptiveController#GRADIENT_WEIGHT}) within half the headroom, saw no queue at all:
 *       the limit grows by {@value AdaptiveController#GROWTH} of itself at least (a multiplicative
 *       increase: a baseline a little low would stall the Little target). Until the first round
 *       that is unbound or shows a queue, any R within {@value AdaptiveController#QUEUEING} of B
 *       counts as none (a cold start grows by 10 % a round). There is no band in which the limit is
 *       held: with one, the calls inside sit anywhere in it, and a growth band as wide as the
 *       headroom grows the limit in every other round at the knee (the calls inside then sat 10-25 %
 *       above it).
 *   <li><b>Unbound round:</b> the latency is the resource's own at the demand of the round. If R is
 *       within {@value AdaptiveController#QUEUEING} of B, it is a no-load reading (below) and the
 *       limit is raised, never lowered, to twice the most calls seen inside: demand below capacity
 *       is never refused (a static limit at the knee refuses 2.7 % at 80 % load, by Erlang B; this
 *       one stays a factor two above the peaks of that load, plus the reserves of the criticalities
 *       above the lowest, so that the lowest one too is admitted up to twice the peak). If R is
 *       above, a queue grew below the limit: the limit is held at twice the most calls inside, which
 *       passes the demand of the round but is met by a queue that keeps growing, whose next round is
 *       then a bound one; and when R stays the same for two such rounds without a queue growing
 *       into the limit, the resource is slower rather than overloaded, and B becomes R.
 * </ul>
 *
 * <h2>The baseline, and why it does not drift</h2>
 * Vegas re-learns its no-load latency from loaded samples and drifts upward (#165); Envoy measures its
 * minimum latency by pinning the concurrency to a few calls, which refuses traffic at any load, and
 * its baseline climbed under sustained load as samples of the previous epoch leaked in (#11579,
 * #38338). A minimum of latencies is no answer either: with a spread of service times it is a
 * fraction of the mean, and reads a queue where there is none. Here B is the mean of
 * <em>no-load readings</em> only, never of a bound round: the rounds where the limit did not bind
 * and R showed no queue, and <em>drains</em>. A drain, begun when the limit has bound for
 * {@value AdaptiveController#DRAIN_PERIOD_NANOS} ns of engine time without a reading, holds the
 * calls inside at X B (1 - depth) (depth {@value AdaptiveController#DRAIN_DEPTH}) plus the gap of
 * the limit <em>in force</em> (a drain on top of a limit raised by the same round stayed above the
 * knee and read the queue: that, repeated, was how B climbed 10 % at a time and held the calls
 * inside above the knee for good). Its rounds are half as long; the first lets the calls admitted
 * before it finish, and while a round's R is still falling by more than
 * {@value AdaptiveController#QUEUEING} a queue is still emptying and the drain settles on (up to
 * {@value AdaptiveController#MAX_SETTLE_ROUNDS} rounds, then it gives up without a reading). The
 * first flat round is the reading.
 * <p>
 * <b>Pooling.</b> A reading of n samples is pooled into B, weighted by n, over about the last
 * {@value AdaptiveController#POOL_SAMPLES} samples, when it lies within
 * {@value AdaptiveController#SHIFT_Z} standard errors of B (the error is sqrt(V / n), V the squared
 * coefficient of variation of one latency, itself learned from the pooled readings, starting at
 * {@value AdaptiveController#INITIAL_DISPERSION}), or within {@value AdaptiveController#MIN_SHIFT}
 * of it. One reading of a round is a few percent off by chance (4 % for 200 calls of a
 * coefficient of variation of 0.5); B pooled over a thousand is within 2 %, so that the knee estimate
 * and the calls inside are too. A reading beyond the noise is a change only when the next one beyond
 * it lies on the same side: B then becomes the nearer of the two, and rises by
 * {@value AdaptiveController#QUEUEING} at most. The first round counts only the calls that finished
 * within it, the short ones: it is not used; the second gives a provisional B that the first
 * reading replaces whole.
 * <p>
 * <b>Why it converges, and why it cannot creep.</b> B moves only by readings taken with the calls
 * inside below the knee estimate, where there is no queue if B is right. If B = S (1 + e) with
 * e &lt; depth, the drain holds the calls inside below K and reads S, so pooled readings pull B to S;
 * with e beyond the noise, two such readings move B to S at once, and a lower reading also doubles
 * the next drain's depth (up to {@value AdaptiveController#MAX_DRAIN_DEPTH}), two rounds later, so
 * that a B too high by more than the depth is unlearned in a few drains. If B is too low, a drain
 * reads S, above B: pooled, or two readings raise it by QUEUEING; a B too low by more than the
 * headroom makes the Little target shrink below the knee, round after round with the latency near
 * B, and cuts of {@value AdaptiveController#SUSPECT_CUT} since the last limit as high (or the last
 * fall of the latency) start a drain at once whose higher reading is believed at once. A queue can
 * teach B nothing: bound rounds never reach it, a drain whose latency still falls is not read, and
 * a single high reading (a drain begun as the capacity fell) is not believed. With B fixed and the
 * throughput at its peak, a bound round sets the calls inside to μ B (1 + HEADROOM) whatever they
 * were: nothing accumulates from one round to the next, so nothing can creep. Measured on the
 * overload harness (driven time): after the capacity halves, the one-second means of the calls
 * inside are within 10 % of the new knee from the first second; after it recovers, within two.
 * <p>
 * The drain costs no rejections below capacity (it only follows bound rounds) and, above it,
 * {@value AdaptiveController#DRAIN_DEPTH} of throughput for two short rounds every
 * {@value AdaptiveController#DRAIN_PERIOD_NANOS} ns, while the limit refuses the excess anyway.
 *
 * <h2>Bounds that hold, and why</h2>
 * <ul>
 *   <li>Calls inside never exceed {@code max-limit}: admission increments the count by a CAS only
 *       while it is below the admitting criticality's threshold, which is at most the limit, which
 *       is at most {@code max-limit}; nothing else increments it (but a rule in shadow mode, which
 *       never refuses). The controller may compute any limit: it is clamped into
 *       {@code [min-limit, max-limit]} before it is published, and again by the limiter that
 *       admits. No clock reading enters admission, so late or skewed readings cannot loosen it.
 *   <li>The limit moves by at most a factor two per round, rounds are at least 100 ms of engine
 *       time; but a drain, which starts at once when a cut of {@value AdaptiveController#SUSPECT_CUT}
 *       did not lower the latency, goes straight to just below the knee estimate.
 *   <li>Criticality: one word publishes the limit L, the reserve r and the highest criticality
 *       present h. A call of rank k (0 for {@code SHEDDABLE} up to 3 for {@code CRITICAL_PLUS}) is
 *       admitted iff the calls inside are below L - r max(0, h - k). Under one published word that
 *       threshold never decreases with k, so a call is never refused while a call of a lower
 *       criticality would be admitted at the same calls inside: the set of criticalities admitted
 *       is always the top ones. A call below the lowest threshold, as every call is while the limit
 *       does not bind, is admitted without its criticality being looked at. The reserve is a quarter
 *       of the knee estimate X B of the last bound round (of the limit, when lower; at least one
 *       call) per criticality below h; a share of the knee rather than of the limit, so that a limit
 *       far above the demand (at low load) does not carry reserves of the same size: with a tenth of the traffic critical-plus at five
 *       times capacity it refuses a critical-plus call when more than r of them arrive while the
 *       lower ones hold the rest, which for r of ten at half the capacity's rate is one in two
 *       thousand. h is the highest criticality that met the limit in the last two rounds, so a
 *       resource with one criticality gives it the whole limit.
 * </ul>
 *
 * <h2>Threads</h2>
 * Admission and completion are lock-free: a CAS on the calls inside, and on completion a decrement,
 * an add to the round's throughput count and a CAS on one word packing the round's sample count
 * (capped at 4000) and latency sum. The completion that finds the round over ends it under a lock
 * taken with {@code tryLock} (others go on), swaps the accumulators out, runs the
 * {@link AdaptiveController} and publishes the new word. A sample that races the swap lands in the
 * round before or after, whole. Nothing allocates.
 *
 * <p>A rule replaced by one that differs only in its bounds keeps this state: the calls inside, the
 * baseline and the limit, clamped into the new bounds ({@link #withBounds}).
 */
public final class AdaptiveLimiter extends FlowLimiter {

  /** A sample's latency is capped here, so that 4096 of them fit the 52 bits of the sum. */
  static final long MAX_SAMPLE_NANOS = 15L * 60 * 1_000_000_000L;
  private static final int COUNT_SHIFT = 52;
  private static final long SUM_MASK = (1L << COUNT_SHIFT) - 1;
  private static final int MAX_SAMPLES_PER_ROUND = 4000;

  private static final int LIMIT_BITS = 20;
  private static final long LIMIT_MASK = (1L << LIMIT_BITS) - 1;

  private final int minLimit;
  private final int maxLimit;
  private final State state;

  /** A fresh limit starting at {@code startingLimit}, at engine time {@code now}. */
  public AdaptiveLimiter(int minLimit, int maxLimit, int startingLimit, long now) {
    this(minLimit, maxLimit, new State(Math.max(minLimit, Math.min(maxLimit, startingLimit)), now));
    state.publish(minLimit, maxLimit);
  }

  private AdaptiveLimiter(int minLimit, int maxLimit, State state) {
    this.minLimit = minLimit;
    this.maxLimit = maxLimit;
    this.state = state;
  }

  /** The same state under other bounds: a rule that changed only its limits. */
  public AdaptiveLimiter withBounds(int minLimit, int maxLimit) {
    AdaptiveLimiter next = new AdaptiveLimiter(minLimit, maxLimit, state);
    state.lock.lock();
    try {
      state.publish(minLimit, maxLimit);
    } finally {
      state.lock.unlock();
    }
    return next;
  }

  @Override
  public long tryAcquire(int permits, long now) {
    return tryAcquire(permits, now, Criticality.CRITICAL);
  }

  @Override
  public long tryAcquire(int permits, long now, Criticality criticality) {
    State s = state;
    long word = s.word;
    int limit = Math.max(minLimit, Math.min(maxLimit, (int) (word & LIMIT_MASK)));
    int reserve = (int) ((word >>> LIMIT_BITS) & LIMIT_MASK);
    int top = (int) (word >>> (2 * LIMIT_BITS)) & 3;
    int floor = limit - reserve * top;
    AtomicLongArray cells = s.cells;
    while (true) {
      long inside = cells.get(State.INSIDE);
      boolean binding = inside >= floor;
      if (binding && inside >= limit - reserve * Math.max(0, top - criticality.rank())) {
        s.refused(criticality);
        return refused(0);
      }
      if (cells.compareAndSet(State.INSIDE, inside, inside + 1)) {
        if (binding) {
          s.seen(criticality);
        }
        s.peak(inside + 1);
        return 0;
      }
    }
  }

  @Override
  public long tryAcquireWithoutWaiting(int permits, long now, Criticality criticality) {
    return tryAcquire(permits, now, criticality);
  }

  /** A rule in shadow mode lets in the call this limit refused: it is counted inside all the same. */
  @Override
  public long holdInShadow(int permits, long now) {
    state.cells.incrementAndGet(State.INSIDE);
    state.shadowHeld = true;
    return 0;
  }

  @Override
  public void refund(int permits, long token) {
    state.cells.decrementAndGet(State.INSIDE);
  }

  @Override
  public void release(int permits) {
    state.cells.decrementAndGet(State.INSIDE);
  }

  @Override
  public void complete(int permits, long token, long startNanos, long endNanos, int outcome) {
    State s = state;
    s.cells.decrementAndGet(State.INSIDE);
    if (outcome == CANCELLED) {
      return;
    }
    long latency = Math.max(0, endNanos - startNanos);
    if (outcome == FAILED && latency <= s.baselineNanos) {
      return;
    }
    s.sample(Math.min(latency, MAX_SAMPLE_NANOS), endNanos, minLimit, maxLimit);
  }

  /** The limit now: what the highest criticality present is admitted up to. */
  public int limit() {
    return Math.max(minLimit, Math.min(maxLimit, (int) (state.word & LIMIT_MASK)));
  }

  /** The calls inside now. */
  public int inside() {
    return (int) state.cells.get(State.INSIDE);
  }

  /** The baseline (the estimated no-load mean latency) in nanoseconds; 0 before the first round. */
  public long baselineNanos() {
    return state.baselineNanos;
  }

  /** How many calls of {@code criticality} may be inside before it is refused, now. */
  public int threshold(Criticality criticality) {
    long word = state.word;
    int reserve = (int) ((word >>> LIMIT_BITS) & LIMIT_MASK);
    int top = (int) (word >>> (2 * LIMIT_BITS)) & 3;
    return Math.max(0, limit() - reserve * Math.max(0, top - criticality.rank()));
  }

  /** Rounds judged so far; for tests. */
  long rounds() {
    return state.controller.rounds;
  }

  /** Drains begun so far; for tests. */
  long drains() {
    return state.controller.drains;
  }

  /** Whether a drain is in progress; for tests. */
  boolean draining() {
    return state.controller.draining();
  }

  /** What all limiters of one rule's lineage share: the calls inside, the round and the controller. */
  private static final class State {
    /** Indices of the counters in {@link #cells}, each alone on its cache line. */
    static final int INSIDE = 8;
    static final int SAMPLES = 16;
    static final int DELIVERED = 24;

    private static final VarHandle REFUSED;
    private static final VarHandle SHADOW_HELD;
    private static final VarHandle PEAK;
    private static final VarHandle RANKS;

    static {
      try {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        REFUSED = lookup.findVarHandle(State.class, "refusedInRound", boolean.class);
        SHADOW_HELD = lookup.findVarHandle(State.class, "shadowHeld", boolean.class);
        PEAK = lookup.findVarHandle(State.class, "peak", int.class);
        RANKS = lookup.findVarHandle(State.class, "ranks", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final AtomicLongArray cells = new AtomicLongArray(4 * 8 + 1);
    final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    final AdaptiveController controller;
    /** The limit (20 bits), the reserve per criticality (20 bits) and the top rank (2 bits). */
    volatile long word;
    volatile long baselineNanos;
    volatile long roundStart;
    volatile long roundEnd;
    volatile boolean refusedInRound;
    volatile boolean shadowHeld;
    volatile int peak;
    volatile int ranks;

    State(int startingLimit, long now) {
      this.controller = new AdaptiveController(startingLimit);
      this.roundStart = now;
      this.roundEnd = now + controller.roundNanos();
    }

    void refused(Criticality criticality) {
      if (!refusedInRound) {
        REFUSED.setVolatile(this, true);
      }
      seen(criticality);
    }

    void seen(Criticality criticality) {
      int bit = 1 << criticality.rank();
      if ((ranks & bit) == 0) {
        RANKS.getAndBitwiseOr(this, bit);
      }
    }

    void peak(long inside) {
      int seen = peak;
      while (inside > seen && !PEAK.compareAndSet(this, seen, (int) inside)) {
        seen = peak; // another admission raised it: at most as many turns as calls admitted meanwhile
      }
    }

    void sample(long latency, long now, int min, int max) {
      cells.incrementAndGet(DELIVERED);
      long packed = cells.get(SAMPLES);
      while ((packed >>> COUNT_SHIFT) < MAX_SAMPLES_PER_ROUND) {
        long next = packed + (1L << COUNT_SHIFT) + latency;
        long witness = cells.compareAndExchange(SAMPLES, packed, next);
        if (witness == packed) {
          packed = next;
          break;
        }
        packed = witness;
      }
      if ((packed >>> COUNT_SHIFT) >= AdaptiveController.MIN_SAMPLES && now - roundEnd >= 0 && lock.tryLock()) {
        try {
          endRound(now, min, max);
        } finally {
          lock.unlock();
        }
      }
    }

    /** Under {@link #lock}. */
    private void endRound(long now, int min, int max) {
      long start = roundStart;
      if (now - roundEnd < 0) {
        return; // another completion ended this round first
      }
      long packed = cells.getAndSet(SAMPLES, 0);
      long delivered = cells.getAndSet(DELIVERED, 0);
      boolean refused = (boolean) REFUSED.getAndSet(this, false);
      boolean shadow = (boolean) SHADOW_HELD.getAndSet(this, false);
      int mostInside = (int) PEAK.getAndSet(this, 0);
      int seen = (int) RANKS.getAndSet(this, 0);
      long samples = packed >>> COUNT_SHIFT;
      if (samples > 0) {
        controller.round(now, now - start, samples, packed & SUM_MASK, Math.max(samples, delivered), refused, shadow,
            mostInside, seen, min, max);
      }
      publish(min, max);
      roundStart = now;
      roundEnd = now + controller.roundNanos();
    }

    /** Under {@link #lock}, or before the state is shared. */
    void publish(int min, int max) {
      int limit = controller.wholeLimit(min, max);
      int top = controller.top;
      long reserve = controller.reserve(limit);
      double baseline = controller.baseline;
      baselineNanos = Double.isNaN(baseline) ? 0 : (long) baseline;
      word = limit | reserve << LIMIT_BITS | (long) top << (2 * LIMIT_BITS);
    }
  }
}
