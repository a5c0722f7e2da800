package dev.weir.spring.properties;

import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One circuit breaker, as bound from {@code weir.degrade[*]} and as posted to the {@code weir}
 * endpoint under {@code degrade}. {@code strategy} and {@code threshold} are required (and
 * {@code slow-call-threshold} for slow-ratio); {@link WeirPropertiesValidator} reports what is
 * missing or out of range.
 */
public final class DegradeRuleProperties {

  private static final int DEFAULT_MIN_REQUEST_AMOUNT = 5;

  /**
   * Whether the rule is in shadow mode: evaluated with its full state, it refuses nothing and
   * counts what it would have refused (meter weir.blocks.shadow). Unset: weir.shadow.
   */
  private @Nullable Boolean shadow;

  /** The guarded resource. */
  private @Nullable String resource;

  /** What opens the circuit: slow-ratio, error-ratio or error-count. */
  private @Nullable DegradeStrategy strategy;

  /** A ratio in [0, 1] for the ratio strategies, or a count for error-count. */
  private @Nullable Double threshold;

  /** Strategy slow-ratio: calls slower than this are slow. */
  private @Nullable Duration slowCallThreshold;

  /** Calls needed in a stat-interval before the circuit may open. */
  private int minRequestAmount = DEFAULT_MIN_REQUEST_AMOUNT;

  /** The window the threshold is measured over. */
  private Duration statInterval = Duration.ofSeconds(1);

  /** How long the circuit stays open before one probe call decides. */
  private Duration openDuration = Duration.ofSeconds(10);

  /**
   * Instead of stat-interval, "N calls": the circuit judges the last N completed calls however
   * long ago they completed (1 to 100000). Unset: the calls of the last stat-interval.
   */
  private @Nullable String window;


  // Setters of flags and whole numbers take wrapper types, null restoring the default: for a field
  // the rule does not set, Spring Boot's binder converts "no value" to the setter's type, and to a
  // primitive type that throws (and catches) two exceptions; that was most of the time of binding a
  // posted rule (RuleBinding).
  public @Nullable String getResource() {
    return resource;
  }

  public void setResource(@Nullable String resource) {
    this.resource = resource;
  }

  public @Nullable DegradeStrategy getStrategy() {
    return strategy;
  }

  public void setStrategy(@Nullable DegradeStrategy strategy) {
    this.strategy = strategy;
  }

  public @Nullable Double getThreshold() {
    return threshold;
  }

  public void setThreshold(@Nullable Double threshold) {
    this.threshold = threshold;
  }

  public @Nullable Duration getSlowCallThreshold() {
    return slowCallThreshold;
  }

  public void setSlowCallThreshold(@Nullable Duration slowCallThreshold) {
    this.slowCallThreshold = slowCallThreshold;
  }

  public int getMinRequestAmount() {
    return minRequestAmount;
  }

  public void setMinRequestAmount(@Nullable Integer minRequestAmount) {
    this.minRequestAmount = minRequestAmount != null ? minRequestAmount : DEFAULT_MIN_REQUEST_AMOUNT;
  }

  public Duration getStatInterval() {
    return statInterval;
  }

  public void setStatInterval(Duration statInterval) {
    this.statInterval = statInterval;
  }

  public Duration getOpenDuration() {
    return openDuration;
  }

  public void setOpenDuration(Duration openDuration) {
    this.openDuration = openDuration;
  }

  public @Nullable String getWindow() {
    return window;
  }

  public void setWindow(@Nullable String window) {
    this.window = window;
  }

  /**
   * The calls of a count-based {@code window}: 0 when unset, -1 when it is not {@code "<N> calls"}
   * (the validator then names the property and what it accepts).
   */
  static int windowCalls(@Nullable String window) {
    if (window == null || window.isBlank()) {
      return 0;
    }
    String text = window.strip();
    int digits = 0;
    while (digits < text.length() && digits < 8 && Character.isDigit(text.charAt(digits))) {
      digits++;
    }
    String unit = text.substring(digits).strip();
    if (digits == 0 || digits >= 8 || !(unit.equals("calls") || unit.equals("call"))) {
      return -1;
    }
    int calls = Integer.parseInt(text.substring(0, digits));
    return calls == 0 ? -1 : calls;
  }

  public @Nullable Boolean getShadow() {
    return shadow;
  }

  public void setShadow(@Nullable Boolean shadow) {
    this.shadow = shadow;
  }

  /** Returns whether the rule is in shadow mode: its own {@code shadow}, else {@code shadowByDefault}. */
  boolean shadow(boolean shadowByDefault) {
    return shadow != null ? shadow : shadowByDefault;
  }

  /** Returns the rule; missing required values are reported by {@link WeirPropertiesValidator}. */
  DegradeRule toRule() {
    return new DegradeRule(resource == null ? "" : resource, strategy, threshold == null ? Double.NaN : threshold,
        slowCallThreshold, minRequestAmount, statInterval, openDuration, false, windowCalls(window));
  }
}
