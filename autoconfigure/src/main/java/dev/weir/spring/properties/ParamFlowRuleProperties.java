package dev.weir.spring.properties;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.NullKey;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One hot-parameter limit, as bound from {@code weir.param-flow[*]} and as posted to the
 * {@code weir} endpoint under {@code paramFlow}. {@code count} is required;
 * {@link WeirPropertiesValidator} reports what is missing or out of range.
 */
public final class ParamFlowRuleProperties {

  /**
   * Whether the rule is in shadow mode: evaluated with its full state, it refuses nothing and
   * counts what it would have refused (meter weir.blocks.shadow). Unset: weir.shadow.
   */
  private @Nullable Boolean shadow;

  /** The guarded resource. */
  private @Nullable String resource;

  /**
   * The rule's name: its policy's name in the RateLimit-Policy and RateLimit headers, on the
   * dashboard and in logs. 1 to 64 letters, digits and . _ : - (it is sent in HTTP headers).
   * Unset: the policy is named by its kind and position, such as flow-0.
   */
  private @Nullable String name;

  /** Which argument is limited per value; negative counts from the end. Default 0; not with key. */
  private @Nullable Integer paramIndex;

  /**
   * Instead of param-index, a key expression naming the key: for a @RateLimited method over its
   * arguments (#name, #p0, #a0, #args), for a route over a read-only view of the request
   * (#request.getHeader('X-Api-Key')) and the principal's name (#principal).
   */
  private @Nullable String key;

  /** How a null key is decided: allow (not limited), deny (refused), or shared (one bucket). */
  private NullKey nullKey = NullKey.SHARED;

  /** Whether each key's count is shared by all instances (needs weir.cluster.enabled). */
  private boolean clusterMode;

  /** qps: calls per duration for each value; threads: calls inside at once for each value. */
  private FlowGrade grade = FlowGrade.QPS;

  /** Calls per duration allowed for each value of the argument. */
  private @Nullable Double count;

  /** The span that count applies to; whole milliseconds from 1ms to 1d. */
  private Duration duration = Duration.ofSeconds(1);

  /** Extra calls allowed in a burst. */
  private int burst;

  /** What happens above the rate: reject or queue. */
  private ControlBehavior controlBehavior = ControlBehavior.REJECT;

  /** Queue behavior: the longest a call waits for its turn; 0 to 1h. */
  private Duration maxQueueingTime = Duration.ZERO;

  /** Values with a count of their own. */
  private List<ParamFlowItemProperties> exceptions = new ArrayList<>();


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

  public @Nullable String getName() {
    return name;
  }

  public void setName(@Nullable String name) {
    this.name = name;
  }

  public @Nullable Integer getParamIndex() {
    return paramIndex;
  }

  public void setParamIndex(@Nullable Integer paramIndex) {
    this.paramIndex = paramIndex;
  }

  public @Nullable String getKey() {
    return key;
  }

  public void setKey(@Nullable String key) {
    this.key = key;
  }

  public NullKey getNullKey() {
    return nullKey;
  }

  public void setNullKey(NullKey nullKey) {
    this.nullKey = nullKey;
  }

  public boolean isClusterMode() {
    return clusterMode;
  }

  public void setClusterMode(@Nullable Boolean clusterMode) {
    this.clusterMode = clusterMode != null && clusterMode;
  }

  public FlowGrade getGrade() {
    return grade;
  }

  public void setGrade(FlowGrade grade) {
    this.grade = grade;
  }

  public @Nullable Double getCount() {
    return count;
  }

  public void setCount(@Nullable Double count) {
    this.count = count;
  }

  public Duration getDuration() {
    return duration;
  }

  public void setDuration(Duration duration) {
    this.duration = duration;
  }

  public int getBurst() {
    return burst;
  }

  public void setBurst(@Nullable Integer burst) {
    this.burst = burst != null ? burst : 0;
  }

  public ControlBehavior getControlBehavior() {
    return controlBehavior;
  }

  public void setControlBehavior(ControlBehavior controlBehavior) {
    this.controlBehavior = controlBehavior;
  }

  public Duration getMaxQueueingTime() {
    return maxQueueingTime;
  }

  public void setMaxQueueingTime(Duration maxQueueingTime) {
    this.maxQueueingTime = maxQueueingTime;
  }

  public List<ParamFlowItemProperties> getExceptions() {
    return exceptions;
  }

  public void setExceptions(List<ParamFlowItemProperties> exceptions) {
    this.exceptions = exceptions;
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
  ParamFlowRule toRule() {
    List<ParamFlowItem> items = new ArrayList<>();
    for (ParamFlowItemProperties exception : exceptions) {
      items.add(new ParamFlowItem(exception.getValue() == null ? "" : exception.getValue(),
          exception.getCount() == null ? 0 : exception.getCount()));
    }
    return new ParamFlowRule(resource == null ? "" : resource, paramIndex == null ? 0 : paramIndex, key, nullKey,
        grade, count == null ? 0 : count, duration, burst, controlBehavior, maxQueueingTime, items, clusterMode, false, name);
  }
}
