package dev.weir.rule;

import java.time.Duration;

/**
 * The largest durations the validators accept, shared by the rule kinds.
 *
 * <p>Why there are bounds at all: the engine keeps time as {@code long} nanoseconds, which
 * {@link Duration#toNanos()} cannot represent beyond about 292 years, and its schedules add several
 * durations together (a queued call's slot is the clock reading plus the wait plus the spacing of
 * each permit). A duration a little below the overflow would still overflow that sum. Every bound
 * here is therefore at least five orders of magnitude below the overflow, so that sums of a few of
 * them, times the permits of a call, stay exact; and each is far above any setting that makes sense
 * for the thing it bounds:
 * <ul>
 *   <li>{@link #MAX_QUEUEING_TIME}, 1 hour: a queued call holds its thread while it waits; a wait of
 *       more than an hour is a stuck request, not flow control.
 *   <li>{@link #MAX_WARM_UP_PERIOD}, 1 day: warm-up covers a cold start (caches, connection pools,
 *       JIT), minutes at most; a day also matches the longest {@code interval}.
 *   <li>{@link #MAX_SPACING}, 1 day: the time between two admissions of a paced limit
 *       ({@code interval / count} for {@code queue}, times {@code cold-factor} for the cold end of
 *       the warm-up behaviours, {@code duration / count} for the hot-parameter token bucket and
 *       queue). A count so small that calls are spaced further apart (a {@code count} of
 *       {@code 1e-10} per second spaces them 317 years apart) is a typo; refusing every call is
 *       written {@code count: 0}.
 *   <li>{@link #MAX_AVG_RT}, 1 hour: the system rule compares it with the mean response time of the
 *       last second.
 * </ul>
 * Names a rule gives (its resource, a referenced resource or context, an origin, an exception
 * value) are at most {@link #MAX_NAME_LENGTH} characters, without control characters.
 */
final class RuleBounds {

  /** Longest {@code max-queueing-time} of flow and hot-parameter rules. */
  static final Duration MAX_QUEUEING_TIME = Duration.ofHours(1);

  /** The longest name a rule may give (a resource, a referenced resource or context, an origin, an exception value). */
  static final int MAX_NAME_LENGTH = 512;

  /** Longest {@code warm-up-period} of flow rules. */
  static final Duration MAX_WARM_UP_PERIOD = Duration.ofDays(1);

  /** Longest time between two admissions of a paced limit. */
  static final Duration MAX_SPACING = Duration.ofDays(1);

  /** Largest {@code max-avg-rt} of the system rule. */
  static final Duration MAX_AVG_RT = Duration.ofHours(1);

  private RuleBounds() {
  }
}
