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
  static final double HEADROOM = 0.03;
  /** A bound round whose latency is at most the baseline raises the limit by at least this share. */
  static final double GROWTH = 0.1;
  /** How far one bound round moves the smoothed gradient. */
  static final double GRADIENT_WEIGHT = 0.3;
  /** A round whose latency is more than {@code 1 + QUEUEING} times the baseline saw a queue. */
  static final double QUEUEING = 0.10;
  /** A drain holds the calls inside at {@code 1 - depth} times the knee estimate; its first depth. */
  static final double DRAIN_DEPTH = 0.15;
  /** The deepest drain: each drain that finds a lower latency doubles the next one's depth, up to this. */
  static final double MAX_DRAIN_DEPTH = 0.5;
  /** While the limit binds, the baseline is measured again (a drain) when it is this old. */
  static final long DRAIN_PERIOD_NANOS = 10_000_000_000L;
  /** A drain whose latency still falls after this many settling rounds is given up. */
  static final int MAX_SETTLE_ROUNDS = 4;
  /** Rounds between a drain whose reading was a change, or one not yet believed, and the next one. */
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
  /** The baseline pools the latencies of at most about this many no-load samples; older ones weigh less. */
  static final double POOL_SAMPLES = 1000;
  /** A no-load reading further from the baseline than this many standard errors is a change, not noise. */
  static final double SHIFT_Z = 3;
  /** A no-load reading within this share of the baseline is pooled, whatever the noise measured. */
  static final double MIN_SHIFT = 0.05;
  /** The squared coefficient of variation of one latency, assumed until readings measure it. */
  static final double INITIAL_DISPERSION = 1;
  /** How far one no-load reading moves the measured dispersion. */
  static final double DISPERSION_WEIGHT = 0.2;

  private static final int POOLED = 0;
  private static final int LOWER = 1;
  private static final int HIGHER = 2;
  private static final int UNCONFIRMED = 3;

  private static final int NORMAL = 0;
  private static final int SETTLE = 1;
  private static final int MEASURE = 2;

  /** The limit, within the bounds of the rule that ran the last round. */
  double limit;
  /** The no-load mean latency in nanoseconds; NaN until the second round (the first is not used). */
  double baseline = Double.NaN;
  /** The no-load samples the baseline pools, at most {@link #POOL_SAMPLES}. */
  double pooled;
  /**
   * The measured squared coefficient of variation of one latency (and of the gaps between
   * completions): a reading of n samples has a relative standard error of {@code sqrt(dispersion / n)}.
   */
  double dispersion = INITIAL_DISPERSION;
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
  /** The mean latency of the drain's last settling round. */
  private double settleLatency;
  /** Settling rounds the drain has run. */
  private int settled;
  private long lastBaselineAt;
  private int roundsToNextDrain = -1;
  private double streakStartLimit = Double.NaN;
  private double streakStartLatency;
  private double previousLatency = Double.NaN;
  private boolean previousQueuedUnbound;
  /** No round has seen a queue or run unbound yet. */
  private boolean starting = true;
  /** The side (-1 lower, 1 higher) of the last no-load reading, when it lay beyond the noise; else 0. */
  private int pendingSide;
  /** That reading's latency. */
  private double pendingLatency;
  /** The drain in progress was begun on a suspect cut near the baseline latency. */
  private boolean lowSuspect;
  /** The latency over the baseline, smoothed over consecutive bound rounds; NaN after any other. */
  private double gradient = Double.NaN;

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
    // A drain's rounds are half as long: the queue it leaves empties in a few latencies, the
    // readings pool across drains, and the calls inside are held below the knee for less time.
    double nanos = baseline * (phase == NORMAL ? ROUND_LATENCIES : ROUND_LATENCIES / 2);
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
    if (rounds == 1) {
      // Only the calls that finished within the first round are counted, the shorter ones: its
      // latency is too low, and it is not used.
      set(limit, min, max);
      return;
    }
    if (Double.isNaN(baseline)) {
      // A provisional baseline: the first no-load reading replaces it whole.
      baseline = latency;
      pooled = 0;
      lastBaselineAt = now;
      previousLatency = latency;
      set(limit, min, max);
      return;
    }
    if (phase == SETTLE) {
      // The first round of a drain lets the calls admitted before it finish; it is not used.
      phase = MEASURE;
      settleLatency = latency;
      settled = 1;
      return;
    }
    if (phase == MEASURE) {
      if (latency < settleLatency * (1 - QUEUEING)) {
        // Still falling: a queue from before the drain (or from a capacity that fell meanwhile)
        // is still emptying, and this latency is not the no-load one. Settle on, a few rounds at
        // most; then give up without learning, and try again later.
        settleLatency = latency;
        if (++settled >= MAX_SETTLE_ROUNDS) {
          phase = NORMAL;
          roundsToNextDrain = ESCALATION_GAP_ROUNDS;
          set(limitBeforeDrain, min, max);
        }
        return;
      }
      finishDrain(now, samples, latency, shadowHeld, min, max);
      previousLatency = latency;
      return;
    }
    if (!refused || (pooled > 0 && latency > baseline * (1 + QUEUEING))) {
      starting = false;
    }
    if (refused) {
      previousQueuedUnbound = false;
      bound(now, throughput, latency, inside, shadowHeld, min, max);
    } else {
      streakStartLimit = Double.NaN;
      gradient = Double.NaN;
      unbound(now, samples, latency, peak, min, max);
    }
    previousLatency = latency;
  }

  /**
   * The limit refused calls: hold the calls inside at the knee estimate, {@code X * B * (1 + HEADROOM)}.
   * As a gradient: with q = R / B, the next target is {@code N (1 + HEADROOM) / q}, so a round at the
   * baseline latency (the limit binds below the knee) grows the limit by the headroom, and a round
   * with a queue cuts it to the knee at once.
   */
  private void bound(long now, double throughput, double latency, double inside, boolean shadowHeld, int min,
      int max) {
    double inForce = limit;
    knee = throughput * baseline;
    // What lies between the limit and the mean calls inside stays: the reserves of the higher
    // criticalities, and the gaps between a completion and the next admission.
    double gap = Math.max(0, inForce - inside);
    double next = knee * (1 + HEADROOM) + gap;
    double q = latency / baseline;
    gradient = Double.isNaN(gradient) ? q : gradient + GRADIENT_WEIGHT * (q - gradient);
    if (starting ? q <= 1 + QUEUEING : q <= 1 + HEADROOM && gradient <= 1 + HEADROOM / 2) {
      // Refused, and no queue at all: the limit binds below the knee. Grow multiplicatively, not
      // only by the headroom of the Little target (which a baseline a little low would stall).
      // Until the first queue or the first unbound round, a latency within QUEUEING of the
      // baseline counts as none: the first baselines are measured on few calls.
      next = Math.max(next, inForce * (1 + GROWTH));
    }
    next = Math.max(inForce / MAX_STEP, Math.min(inForce * MAX_STEP, next));
    if (Double.isNaN(streakStartLimit) || inForce >= streakStartLimit
        || latency < streakStartLatency * (1 - SUSPECT_CUT / 3)) {
      // A new reference: the limit is as high as the last one, or the latency fell (the cuts
      // since worked). Cuts are measured from it across rounds, whatever the noise in between.
      streakStartLimit = inForce;
      streakStartLatency = latency;
    }
    set(next, min, max);
    if (shadowHeld) {
      return; // a drain in shadow mode would hold nothing back: the baseline cannot be measured
    }
    boolean suspect = !Double.isNaN(streakStartLimit) && limit <= streakStartLimit * (1 - SUSPECT_CUT)
        && latency >= streakStartLatency * (1 - SUSPECT_CUT / 3);
    boolean due = roundsToNextDrain >= 0 ? roundsToNextDrain-- == 0 : now - lastBaselineAt >= DRAIN_PERIOD_NANOS;
    if (suspect || due) {
      // Cut by SUSPECT_CUT with the latency near the baseline all along: the shape of a
      // baseline too low (the Little target shrinking below the knee), not of a queue.
      lowSuspect = suspect && latency <= baseline * (1 + QUEUEING);
      // The gap is the one of the limit in force in the round, not of the one just set: a limit
      // raised by this round would otherwise raise the drain above the knee, and a drain that
      // does not empty the queue measures the queue.
      startDrain(knee, gap, min, max);
    }
  }

  /** The limit did not bind: the latency is the resource's own at the demand of the round. */
  private void unbound(long now, long samples, double latency, int peak, int min, int max) {
    double q = latency / baseline;
    if (q > 1 + QUEUEING) {
      // A queue grew below the limit: hold the limit near the demand, so that a queue that keeps
      // growing meets it and is cut by the next round, while the calls of this demand still pass.
      set(Math.min(limit, Math.ceil(QUEUE_CAP * peak) + reserves()), min, max);
      if (previousQueuedUnbound && Math.abs(latency / previousLatency - 1) <= QUEUEING) {
        // The same latency two rounds running, and no growing queue met the limit: the resource
        // is slower, not overloaded.
        restartPool(now, samples, latency);
      }
      previousQueuedUnbound = true;
      return;
    }
    previousQueuedUnbound = false;
    learn(now, samples, latency);
    // The lowest criticality is admitted up to the limit less the reserves above it: that is what
    // must stay a factor two above the peak.
    set(Math.max(limit, PEAK_HEADROOM * peak + reserves()), min, max);
  }

  /** The reserves of the criticalities above the lowest, under a limit at least the knee. */
  private double reserves() {
    return top * Math.max(1, Math.ceil(knee * RESERVE));
  }

  /**
   * A no-load reading of {@code samples} latencies of mean {@code latency}: pooled into the
   * baseline when it is within {@link #SHIFT_Z} standard errors of it (and always within
   * {@link #MIN_SHIFT}), else a change. A change is believed only when the next reading beyond the
   * noise lies on the same side: one reading beyond {@code SHIFT_Z} errors is a tail of the noise
   * now and then (a round of unusually short calls), or a drain whose round still held a queue;
   * two in a row on the same side are not. The baseline then moves to the nearer of the two, and
   * up by {@link #QUEUEING} at most. Returns {@link #POOLED}, {@link #LOWER}, {@link #HIGHER} or
   * {@link #UNCONFIRMED}.
   */
  private int learn(long now, long samples, double latency) {
    lastBaselineAt = now;
    double deviation = latency / baseline - 1;
    double z2 = samples * deviation * deviation;
    int side = deviation < 0 ? -1 : 1;
    int before = pendingSide;
    pendingSide = 0;
    if (z2 <= SHIFT_Z * SHIFT_Z * dispersion || Math.abs(deviation) <= MIN_SHIFT) {
      // Within the noise: pooled, and the dispersion learns from it. Only such readings teach the
      // dispersion, so a change does not widen the tolerance for the readings after it; one too
      // low widens it all the same, as readings near the tolerance pull it up.
      dispersion += DISPERSION_WEIGHT * (Math.min(z2, SHIFT_Z * SHIFT_Z * dispersion) - dispersion);
      pooled = Math.min(POOL_SAMPLES, pooled + samples);
      baseline += (latency - baseline) * samples / pooled;
      return POOLED;
    }
    if (before != side) {
      pendingSide = side;
      pendingLatency = latency;
      return UNCONFIRMED;
    }
    double nearer = side < 0 ? Math.max(latency, pendingLatency) : Math.min(latency, pendingLatency);
    restartPool(now, samples, Math.min(nearer, baseline * (1 + QUEUEING)));
    return side < 0 ? LOWER : HIGHER;
  }

  private void restartPool(long now, long samples, double latency) {
    baseline = latency;
    pooled = samples;
    lastBaselineAt = now;
  }

  private void startDrain(double knee, double gap, int min, int max) {
    drains++;
    limitBeforeDrain = limit;
    streakStartLimit = Double.NaN;
    roundsToNextDrain = -1;
    set(knee * (1 - drainDepth) + gap, min, max);
    settled = 0;
    phase = SETTLE;
    gradient = Double.NaN;
  }

  /**
   * The round after the settling one ran with the calls inside held below the knee estimate: its
   * latency is the no-load latency, or, when the estimate was too high, a lower one than before.
   */
  private void finishDrain(long now, long samples, double latency, boolean shadowHeld, int min, int max) {
    phase = NORMAL;
    if (shadowHeld) {
      set(limitBeforeDrain, min, max);
      return;
    }
    double before = baseline;
    // Beyond the noise: the next drain, soon, confirms it or not. Higher: a baseline too low, or a
    // queue the drain did not empty (the capacity fell meanwhile); a queue left over once does not
    // teach the baseline its latency, and a confirmed rise is QUEUEING at most, so that a baseline
    // too low gets there over a few drains a second or so apart.
    int change = learn(now, samples, latency);
    if (lowSuspect && change != LOWER && latency > baseline) {
      // The drain was begun because the limit kept falling without a queue: a higher latency
      // here is the answer sought, and is believed at once (by QUEUEING at most).
      restartPool(now, samples, Math.min(latency, before * (1 + QUEUEING)));
      pendingSide = 0;
      change = HIGHER;
    }
    lowSuspect = false;
    // Lower than the noise allows: the baseline was too high, so the drain may not have reached
    // below the knee either: the next one, soon, goes twice as deep.
    drainDepth = change == LOWER ? Math.min(MAX_DRAIN_DEPTH, drainDepth * 2) : DRAIN_DEPTH;
    roundsToNextDrain = change == POOLED ? -1 : ESCALATION_GAP_ROUNDS;
    // The throughput before the drain, at the baseline measured now.
    set(limitBeforeDrain * (baseline / before), min, max);
  }

  private void set(double next, int min, int max) {
    limit = Math.max(min, Math.min(max, next));
  }

  /** Whether a drain is in progress (its limit is below the knee estimate on purpose). */
  boolean draining() {
    return phase != NORMAL;
  }
}
