package dev.weir.internal.limit;

import dev.weir.Criticality;

/**
 * The arithmetic of an adaptive limit: given what one round measured, the next limit, baseline and
 * criticality reserve. Single-threaded: {@link AdaptiveLimiter} runs it under its update lock, and
 * tests drive it directly. The reasoning is in {@link AdaptiveLimiter}'s class comment; the names
 * here follow it (L the limit, B the baseline, X the throughput, R the mean latency, N the mean
 * calls inside, q = R / B).
 */
final class AdaptiveController {

  /** The calls inside a saturated resource are held at its knee times {@code 1 + HEADROOM}. */
  static final double HEADROOM = 0.05;
  /** A bound round without a queue raises the limit by at least this share. */
  static final double GROWTH = 0.1;
  /** A bound round whose latency is within {@code 1 + GROW_BAND} times the baseline saw no queue: it grows the limit. */
  static final double GROW_BAND = 0.05;
  /** A bound round whose latency is within {@code 1 + HOLD_BAND} times the baseline does not cut the limit. */
  static final double HOLD_BAND = 0.10;
  /** A round whose latency is more than {@code 1 + QUEUEING} times the baseline saw a queue. */
  static final double QUEUEING = 0.10;
  /** How far one unbound round moves the baseline towards its latency. */
  static final double BASELINE_WEIGHT = 0.25;
  /** A drain holds the calls inside at {@code 1 - depth} times the knee estimate; its first depth. */
  static final double DRAIN_DEPTH = 0.05;
  /** The deepest drain: each drain that finds a lower latency doubles the next one's depth, up to this. */
  static final double MAX_DRAIN_DEPTH = 0.5;
  /** While the limit binds, the baseline is measured again (a drain) when it is this old. */
  static final long DRAIN_PERIOD_NANOS = 10_000_000_000L;
  /** Rounds between a drain that found a lower latency and the next, deeper one. */
  static final int ESCALATION_GAP_ROUNDS = 2;
  /** Rounds last at least this long, and at least {@link #ROUND_LATENCIES} baselines. */
  static final long MIN_ROUND_NANOS = 100_000_000L;
  /** Rounds last at most this long, once they have {@link #MIN_SAMPLES} samples. */
  static final long MAX_ROUND_NANOS = 10_000_000_000L;
  /** A round lasts this many baselines: the effect of the last change has settled in it. */
  static final int ROUND_LATENCIES = 10;
  /** The completed calls a round needs before it is judged. */
  static final int MIN_SAMPLES = 32;
  /** One round moves the limit down to no less than half, and up to no more than twice, its value. */
  static final double MAX_STEP = 2;
  /** An unbound round keeps the limit at least this many times the most calls inside it saw. */
  static final double PEAK_HEADROOM = 2;
  /**
   * An unbound round that saw a queue holds the limit at most this many times the most calls inside
   * (plus the reserves): the demand of the round passes, a queue that keeps growing meets the limit.
   */
  static final double QUEUE_CAP = 2;
  /** A cut of this much over consecutive rounds that did not lower the latency is suspect: measure again. */
  static final double SUSPECT_CUT = 0.15;
  /** Each criticality below the highest one present gives up this share of the limit more. */
  static final double RESERVE = 0.25;

  private static final int NORMAL = 0;
  private static final int SETTLE = 1;
  private static final int MEASURE = 2;

  /** The limit, within the bounds of the rule that ran the last round. */
  double limit;
  /** The no-load mean latency in nanoseconds; NaN until the first round. */
  double baseline = Double.NaN;
  /** The rank of the highest criticality seen where the limit binds, lately. */
  int top = Criticality.CRITICAL.rank();
  /**
   * The knee estimate X B of the last bound round (the starting limit before one): the reserves of
   * the higher criticalities are shares of it, not of the limit, so that a limit raised far above
   * the demand does not raise them with it.
   */
  double knee;
  /** Rounds judged, for tests and the endpoint. */
  long rounds;
  /** Drains begun. */
  long drains;

  private int ranksBefore;
  private int phase = NORMAL;
  private double drainDepth = DRAIN_DEPTH;
  private double limitBeforeDrain;
  private double baselineBeforeDrain;
  private long lastBaselineAt;
  private int roundsToNextDrain = -1;
  private double streakStartLimit = Double.NaN;
  private double streakStartLatency;
  private double previousLatency = Double.NaN;
  private boolean previousQueuedUnbound;

  AdaptiveController(int startingLimit) {
    this.limit = startingLimit;
    this.knee = startingLimit;
  }

  /** The limit as admission reads it: a whole number of calls within {@code [min, max]}. */
  int wholeLimit(int min, int max) {
    return (int) Math.max(min, Math.min(max, Math.round(limit)));
  }

  /**
   * The calls each criticality below the highest present gives up under {@code wholeLimit}: a
   * {@link #RESERVE} share of the knee estimate (of the limit, when that is lower), at least one.
   */
  int reserve(int wholeLimit) {
    return top == 0 ? 0 : (int) Math.max(1, Math.ceil(Math.min(wholeLimit, knee) * RESERVE));
  }

  /** How long the next round lasts (it also waits for {@link #MIN_SAMPLES}). */
  long roundNanos() {
    if (Double.isNaN(baseline)) {
      return MIN_ROUND_NANOS;
    }
    double nanos = baseline * ROUND_LATENCIES;
    return nanos >= MAX_ROUND_NANOS ? MAX_ROUND_NANOS : Math.max(MIN_ROUND_NANOS, (long) nanos);
  }

  /**
   * Judges one round and moves the limit, within {@code [min, max]}.
   *
   * @param now the engine time the round ended at
   * @param duration the round's length in nanoseconds, positive
   * @param samples how many latencies {@code latencySum} adds, at least 1
   * @param latencySum their sum in nanoseconds
   * @param delivered the completed calls the round counted, at least {@code samples}
   * @param refused whether the limit refused a call in the round (it bound)
   * @param shadowHeld whether a rule in shadow mode let a call it would refuse in
   * @param peak the most calls inside at an admission of the round
   * @param ranks the criticalities seen where the limit binds, as bits {@code 1 << rank}
   */
  void round(long now, long duration, long samples, long latencySum, long delivered, boolean refused,
      boolean shadowHeld, int peak, int ranks, int min, int max) {
    rounds++;
    double latency = Math.max(1, (double) latencySum / samples);
    double throughput = (double) delivered / duration;
    double inside = throughput * latency;
    int seen = ranks | ranksBefore;
    ranksBefore = ranks;
    if (seen != 0) {
      top = 31 - Integer.numberOfLeadingZeros(seen);
    }
    if (Double.isNaN(baseline)) {
      baseline = latency;
      lastBaselineAt = now;
      previousLatency = latency;
      set(limit, min, max);
      return;
    }
    if (phase == SETTLE) {
      phase = MEASURE;
      return;
    }
    if (phase == MEASURE) {
      finishDrain(now, latency, shadowHeld, min, max);
      previousLatency = latency;
      return;
    }
    if (refused) {
      previousQueuedUnbound = false;
      bound(now, throughput, latency, inside, shadowHeld, min, max);
    } else {
      streakStartLimit = Double.NaN;
      unbound(now, latency, peak, min, max);
    }
    previousLatency = latency;
  }

  /** The limit refused calls: hold the calls inside at the knee estimate, {@code X * B * (1 + HEADROOM)}. */
  private void bound(long now, double throughput, double latency, double inside, boolean shadowHeld, int min,
      int max) {
    knee = throughput * baseline;
    double target = knee * (1 + HEADROOM);
    // What lies between the limit and the mean calls inside stays: the reserves of the higher
    // criticalities, and the gaps between a completion and the next admission.
    double next = target + Math.max(0, limit - inside);
    if (latency <= baseline * (1 + GROW_BAND)) {
      // Refused, yet no queue: the limit binds below the knee, where the Little target grows by
      // HEADROOM per round at best (and not at all with a baseline a little low): grow faster.
      next = Math.max(next, limit * (1 + GROWTH));
    } else if (latency <= baseline * (1 + HOLD_BAND)) {
      // No more queue than the noise of a round's mean: not a reason to cut (a baseline a little
      // low would otherwise cut the limit round after round below the knee).
      next = Math.max(next, limit);
    }
    next = Math.max(limit / MAX_STEP, Math.min(limit * MAX_STEP, next));
    if (next < limit) {
      if (Double.isNaN(streakStartLimit)) {
        streakStartLimit = limit;
        streakStartLatency = latency;
      }
    } else {
      streakStartLimit = Double.NaN;
    }
    set(next, min, max);
    if (shadowHeld) {
      return; // a drain in shadow mode would hold nothing back: the baseline cannot be measured
    }
    boolean suspect = !Double.isNaN(streakStartLimit) && limit <= streakStartLimit * (1 - SUSPECT_CUT)
        && latency >= streakStartLatency * (1 - SUSPECT_CUT / 3);
    boolean due = roundsToNextDrain >= 0 ? roundsToNextDrain-- == 0 : now - lastBaselineAt >= DRAIN_PERIOD_NANOS;
    if (suspect || due) {
      startDrain(throughput, inside, min, max);
    }
  }

  /** The limit did not bind: the latency is the resource's own at the demand of the round. */
  private void unbound(long now, double latency, int peak, int min, int max) {
    double q = latency / baseline;
    if (q > 1 + QUEUEING) {
      // A queue grew below the limit: hold the limit near the demand, so that a queue that keeps
      // growing meets it and is cut by the next round, while the calls of this demand still pass.
      set(Math.min(limit, Math.ceil(QUEUE_CAP * peak) + reserves()), min, max);
      if (previousQueuedUnbound && Math.abs(latency / previousLatency - 1) <= QUEUEING) {
        // The same latency two rounds running, and no growing queue met the limit: the resource
        // is slower, not overloaded.
        learn(now, latency);
      }
      previousQueuedUnbound = true;
      return;
    }
    previousQueuedUnbound = false;
    learn(now, latency);
    // The lowest criticality is admitted up to the limit less the reserves above it: that is what
    // must stay a factor two above the peak.
    set(Math.max(limit, PEAK_HEADROOM * peak + reserves()), min, max);
  }

  /** The reserves of the criticalities above the lowest, under a limit at least the knee. */
  private double reserves() {
    return top * Math.max(1, Math.ceil(knee * RESERVE));
  }

  private void learn(long now, double latency) {
    baseline += BASELINE_WEIGHT * (latency - baseline);
    lastBaselineAt = now;
  }

  private void startDrain(double throughput, double inside, int min, int max) {
    drains++;
    limitBeforeDrain = limit;
    baselineBeforeDrain = baseline;
    streakStartLimit = Double.NaN;
    roundsToNextDrain = -1;
    set(throughput * baseline * (1 - drainDepth) + Math.max(0, limit - inside), min, max);
    phase = SETTLE;
  }

  /**
   * The round after the settling one ran with the calls inside held below the knee estimate: its
   * latency is the no-load latency, or, when the estimate was too high, a lower one than before.
   */
  private void finishDrain(long now, double latency, boolean shadowHeld, int min, int max) {
    phase = NORMAL;
    if (shadowHeld) {
      set(limitBeforeDrain, min, max);
      return;
    }
    double before = baselineBeforeDrain;
    if (latency > before * (1 + QUEUEING)) {
      // Higher than the baseline: a baseline too low, or a queue the drain did not empty (the
      // capacity fell meanwhile). Either way the baseline rises by QUEUEING at most, so that a
      // queue can never teach it its latency; a baseline too low gets there over a few drains.
      baseline = before * (1 + QUEUEING);
      lastBaselineAt = now;
      drainDepth = DRAIN_DEPTH;
      roundsToNextDrain = -1;
      set(limitBeforeDrain, min, max);
      return;
    }
    baseline = latency;
    lastBaselineAt = now;
    boolean lower = latency < before * (1 - drainDepth / 2);
    drainDepth = lower ? Math.min(MAX_DRAIN_DEPTH, drainDepth * 2) : DRAIN_DEPTH;
    roundsToNextDrain = lower ? ESCALATION_GAP_ROUNDS : -1;
    // The throughput before the drain, at the baseline measured now.
    set(limitBeforeDrain * (latency / before), min, max);
  }

  private void set(double next, int min, int max) {
    limit = Math.max(min, Math.min(max, next));
  }

  /** Whether a drain is in progress (its limit is below the knee estimate on purpose). */
  boolean draining() {
    return phase != NORMAL;
  }
}
