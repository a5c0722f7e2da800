package dev.weir.rule;

import java.time.Duration;
import java.util.Objects;

/**
 * A circuit breaker on one resource. While closed it watches completed calls over a sliding
 * {@code statInterval}, or with {@code windowCalls} over the last that many completed calls; once at least {@code minRequestAmount} calls completed there and the
 * strategy's measure passes {@code threshold}, it opens and refuses every call for
 * {@code openDuration}. Then exactly one probe call passes: its outcome closes the breaker (with
 * fresh statistics) or opens it again. A probe that does not complete within {@code openDuration}
 * (for {@code SLOW_RATIO}, the longer of it and {@code slowCallThreshold}) counts as failed, and the
 * next call after that probes. Only failures recorded on the entry count; refused calls never do.
 *
 * @param resource the guarded resource
 * @param strategy what trips the breaker
 * @param threshold a ratio in {@code [0, 1]} for the ratio strategies, a number of failures for
 *     {@code ERROR_COUNT}; the breaker opens when the measure is greater (or, for
 *     {@code SLOW_RATIO}, when both are 1.0)
 * @param slowCallThreshold {@code SLOW_RATIO} only: calls slower than this are slow
 * @param minRequestAmount calls needed in the interval before the breaker may open
 * @param statInterval the sliding interval the statistics cover
 * @param openDuration how long the breaker stays open before a probe; also the probe's timeout
 * @param shadow whether the breaker only counts what it would refuse (see {@link Rule#shadow()}):
 *     it still opens, probes and closes, but an open breaker lets calls through
 * @param windowCalls 0 (the default) to judge the calls of the last {@code statInterval}; else the
 *     breaker judges the last {@code windowCalls} completed calls, however long ago they completed
 *     (YAML {@code window: 100 calls}; from 1 to {@value #MAX_WINDOW_CALLS})
 */
public record DegradeRule(
    String resource,
    DegradeStrategy strategy,
    double threshold,
    Duration slowCallThreshold,
    int minRequestAmount,
    Duration statInterval,
    Duration openDuration,
    boolean shadow,
    int windowCalls)
    implements ResourceRule {

  /** Default of {@link #minRequestAmount()}. */
  public static final int DEFAULT_MIN_REQUEST_AMOUNT = 5;
  /** Default of {@link #statInterval()}. */
  public static final Duration DEFAULT_STAT_INTERVAL = Duration.ofSeconds(1);
  /** Default of {@link #openDuration()}. */
  public static final Duration DEFAULT_OPEN_DURATION = Duration.ofSeconds(10);
  /** Largest {@link #windowCalls()}: the breaker keeps one outcome per call of its window. */
  public static final int MAX_WINDOW_CALLS = 100_000;
  /** Default of {@link #slowCallThreshold()}; only used by {@code SLOW_RATIO}. */
  public static final Duration DEFAULT_SLOW_CALL_THRESHOLD = Duration.ofSeconds(1);

  /** Replaces null components by their defaults. */
  public DegradeRule {
    resource = resource == null ? "" : resource;
    strategy = strategy == null ? DegradeStrategy.ERROR_RATIO : strategy;
    slowCallThreshold = slowCallThreshold == null ? DEFAULT_SLOW_CALL_THRESHOLD : slowCallThreshold;
    statInterval = statInterval == null ? DEFAULT_STAT_INTERVAL : statInterval;
    openDuration = openDuration == null ? DEFAULT_OPEN_DURATION : openDuration;
  }

  /** A breaker over its {@code statInterval}: the components before {@code windowCalls}. */
  public DegradeRule(String resource, DegradeStrategy strategy, double threshold, Duration slowCallThreshold,
      int minRequestAmount, Duration statInterval, Duration openDuration, boolean shadow) {
    this(resource, strategy, threshold, slowCallThreshold, minRequestAmount, statInterval, openDuration, shadow, 0);
  }

  /** A breaker that is not in shadow mode: the components before {@code shadow}. */
  public DegradeRule(String resource, DegradeStrategy strategy, double threshold, Duration slowCallThreshold,
      int minRequestAmount, Duration statInterval, Duration openDuration) {
    this(resource, strategy, threshold, slowCallThreshold, minRequestAmount, statInterval, openDuration, false, 0);
  }

  @Override
  public DegradeRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : new DegradeRule(resource, strategy, threshold, slowCallThreshold,
        minRequestAmount, statInterval, openDuration, shadow, windowCalls);
  }

  /** Whether the breaker judges its last {@link #windowCalls()} calls rather than its {@code statInterval}. */
  public boolean countBased() {
    return windowCalls != 0;
  }

  /** Returns a builder for a breaker on {@code resource} with every other field at its default. */
  public static Builder builder(String resource) {
    return new Builder(resource);
  }

  /** Builds a {@link DegradeRule}. Not thread-safe. */
  public static final class Builder {
    private final String resource;
    private DegradeStrategy strategy = DegradeStrategy.ERROR_RATIO;
    private double threshold = Double.NaN;
    private Duration slowCallThreshold = DEFAULT_SLOW_CALL_THRESHOLD;
    private int minRequestAmount = DEFAULT_MIN_REQUEST_AMOUNT;
    private Duration statInterval = DEFAULT_STAT_INTERVAL;
    private Duration openDuration = DEFAULT_OPEN_DURATION;
    private boolean shadow;
    private int windowCalls;

    private Builder(String resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** Sets what trips the breaker. */
    public Builder strategy(DegradeStrategy strategy) {
      this.strategy = strategy;
      return this;
    }

    /** Sets the threshold (required). */
    public Builder threshold(double threshold) {
      this.threshold = threshold;
      return this;
    }

    /** Sets the response time above which a call is slow. */
    public Builder slowCallThreshold(Duration slowCallThreshold) {
      this.slowCallThreshold = slowCallThreshold;
      return this;
    }

    /** Sets the calls needed before the breaker may open. */
    public Builder minRequestAmount(int minRequestAmount) {
      this.minRequestAmount = minRequestAmount;
      return this;
    }

    /** Sets the interval the statistics cover. */
    public Builder statInterval(Duration statInterval) {
      this.statInterval = statInterval;
      return this;
    }

    /** Sets how long the breaker stays open. */
    public Builder openDuration(Duration openDuration) {
      this.openDuration = openDuration;
      return this;
    }

    /** Sets whether the breaker only counts what it would refuse. */
    public Builder shadow(boolean shadow) {
      this.shadow = shadow;
      return this;
    }

    /** Sets the calls the breaker judges (0: the calls of the last {@code statInterval}). */
    public Builder windowCalls(int windowCalls) {
      this.windowCalls = windowCalls;
      return this;
    }

    /** Returns the rule; it is not validated here. */
    public DegradeRule build() {
      return new DegradeRule(resource, strategy, threshold, slowCallThreshold, minRequestAmount, statInterval,
          openDuration, shadow, windowCalls);
    }
  }

  /** Returns {@link RuleKind#DEGRADE}. */
  @Override
  public RuleKind kind() {
    return RuleKind.DEGRADE;
  }
}
