package dev.weir.spring.properties;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One flow rule, as bound from {@code weir.flow[*]} and as posted to the {@code weir} endpoint under
 * {@code flow}; unset values are the YAML defaults. {@code resource} and {@code count} are
 * required; {@link WeirPropertiesValidator} reports what is missing or out of range.
 */
public final class FlowRuleProperties {

  private static final int DEFAULT_COLD_FACTOR = 3;

  /**
   * Whether the rule is in shadow mode: evaluated with its full state, it refuses nothing and
   * counts what it would have refused (meter weir.blocks.shadow). Unset: weir.shadow.
   */
  private @Nullable Boolean shadow;

  /** The guarded resource (required). */
  private @Nullable String resource;

  /**
   * The rule's name: its policy's name in the RateLimit-Policy and RateLimit headers, on the
   * dashboard and in logs. 1 to 64 letters, digits and . _ : - (it is sent in HTTP headers).
   * Unset: the policy is named by its kind and position, such as flow-0.
   */
  private @Nullable String name;

  /** The limit (required), at least 0; 0 refuses every call. */
  private @Nullable Double count;

  /** What is counted: qps (admissions per interval) or threads (calls inside at once). */
  private FlowGrade grade = FlowGrade.QPS;

  /** Grade qps only: the span that count applies to (1s, 1m, 1h, ...). */
  private Duration interval = Duration.ofSeconds(1);

  /** Grade qps with control-behavior reject only: never more than count in any interval-long span. */
  private boolean exact;

  /** What happens to calls above the rate: reject, warm-up, queue or warm-up-queue. */
  private ControlBehavior controlBehavior = ControlBehavior.REJECT;

  /** Warm-up behaviors: how long the rate takes to rise from count / cold-factor to count; 1ms to 1d. */
  private Duration warmUpPeriod = Duration.ofSeconds(10);

  /** Warm-up behaviors: the rate after an idle period is count / cold-factor; at least 2. */
  private int coldFactor = DEFAULT_COLD_FACTOR;

  /**
   * Queue behaviors: the longest a call waits for its turn before it is refused; 0 to 1h (default
   * 500ms). Grade threads: the longest a call over the limit waits for a place, FIFO (default 0:
   * refused at once).
   */
  private @Nullable Duration maxQueueingTime;

  /** Grade threads with a max-queueing-time: the most calls waiting at once (default: count). */
  private @Nullable Integer maxQueueingCount;

  /** Which traffic the rule looks at: direct, related (another resource) or chain (one context). */
  private FlowStrategy strategy = FlowStrategy.DIRECT;

  /** Required for strategy related (the other resource) and chain (the context name). */
  private @Nullable String refResource;

  /** Which callers: default (all together), other (each origin no other rule names) or an origin. */
  private String limitApp = FlowRule.LIMIT_APP_DEFAULT;

  /** Whether count is shared by every instance of the application (needs weir.cluster). */
  private boolean clusterMode;

  /** Grade adaptive only: the least the limit goes down to, 1 to 1000000. */
  private int minLimit = FlowRule.DEFAULT_MIN_LIMIT;

  /** Grade adaptive only: the most calls ever inside at once, a hard cap; min-limit to 1000000. */
  private int maxLimit = FlowRule.DEFAULT_MAX_LIMIT;

  /** Grade adaptive only: the limit before anything was measured; 0 for 20 brought into the bounds. */
  private int initialLimit;


  // Setters of flags and whole numbers take wrapper types, null restoring the default: for a field
  // the rule does not set, Spring Boot's binder converts "no value" to the setter's type, and to a
  // primitive type that throws (and catches) two exceptions; that was most of the time of binding a
  // posted rule (RuleBinding).
  public int getMinLimit() {
    return minLimit;
  }

  public void setMinLimit(@Nullable Integer minLimit) {
    this.minLimit = minLimit != null ? minLimit : FlowRule.DEFAULT_MIN_LIMIT;
  }

  public int getMaxLimit() {
    return maxLimit;
  }

  public void setMaxLimit(@Nullable Integer maxLimit) {
    this.maxLimit = maxLimit != null ? maxLimit : FlowRule.DEFAULT_MAX_LIMIT;
  }

  public int getInitialLimit() {
    return initialLimit;
  }

  public void setInitialLimit(@Nullable Integer initialLimit) {
    this.initialLimit = initialLimit != null ? initialLimit : 0;
  }

  public @Nullable String getResource() {
    return resource;
  }

  public void setResource(@Nullable String resource) {
    this.resource = resource;
  }

  public @Nullable String getName() {
    return name;
  }

  public void setName(@Nullable String name) {
    this.name = name;
  }

  public @Nullable Double getCount() {
    return count;
  }

  public void setCount(@Nullable Double count) {
    this.count = count;
  }

  public FlowGrade getGrade() {
    return grade;
  }

  public void setGrade(FlowGrade grade) {
    this.grade = grade;
  }

  public Duration getInterval() {
    return interval;
  }

  public void setInterval(Duration interval) {
    this.interval = interval;
  }

  public boolean isExact() {
    return exact;
  }

  public void setExact(@Nullable Boolean exact) {
    this.exact = exact != null && exact;
  }

  public ControlBehavior getControlBehavior() {
    return controlBehavior;
  }

  public void setControlBehavior(ControlBehavior controlBehavior) {
    this.controlBehavior = controlBehavior;
  }

  public Duration getWarmUpPeriod() {
    return warmUpPeriod;
  }

  public void setWarmUpPeriod(Duration warmUpPeriod) {
    this.warmUpPeriod = warmUpPeriod;
  }

  public int getColdFactor() {
    return coldFactor;
  }

  public void setColdFactor(@Nullable Integer coldFactor) {
    this.coldFactor = coldFactor != null ? coldFactor : DEFAULT_COLD_FACTOR;
  }

  public @Nullable Duration getMaxQueueingTime() {
    return maxQueueingTime;
  }

  public void setMaxQueueingTime(@Nullable Duration maxQueueingTime) {
    this.maxQueueingTime = maxQueueingTime;
  }

  public @Nullable Integer getMaxQueueingCount() {
    return maxQueueingCount;
  }

  public void setMaxQueueingCount(@Nullable Integer maxQueueingCount) {
    this.maxQueueingCount = maxQueueingCount;
  }

  public FlowStrategy getStrategy() {
    return strategy;
  }

  public void setStrategy(FlowStrategy strategy) {
    this.strategy = strategy;
  }

  public @Nullable String getRefResource() {
    return refResource;
  }

  public void setRefResource(@Nullable String refResource) {
    this.refResource = refResource;
  }

  public String getLimitApp() {
    return limitApp;
  }

  public void setLimitApp(String limitApp) {
    this.limitApp = limitApp;
  }

  public boolean isClusterMode() {
    return clusterMode;
  }

  public void setClusterMode(@Nullable Boolean clusterMode) {
    this.clusterMode = clusterMode != null && clusterMode;
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

  /** Returns the rule; a missing count reads as 0, and is reported by the caller. */
  FlowRule toRule() {
    return FlowRule.builder(resource == null ? "" : resource)
        .count(count == null ? 0 : count)
        .grade(grade)
        .interval(interval)
        .exact(exact)
        .controlBehavior(controlBehavior)
        .warmUpPeriod(warmUpPeriod)
        .coldFactor(coldFactor)
        .maxQueueingTime(maxQueueingTime)
        .maxQueueingCount(maxQueueingCount == null ? 0 : maxQueueingCount)
        .strategy(strategy)
        .refResource(refResource)
        .limitApp(limitApp)
        .clusterMode(clusterMode)
        .name(name)
        .minLimit(minLimit)
        .maxLimit(maxLimit)
        .initialLimit(initialLimit)
        .build();
  }
}
