package dev.weir.spring.properties;

import dev.weir.rule.SystemRule;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Limits of the application's whole inbound traffic ({@code weir.system}), applied to
 * {@code entry-type: IN} calls only; unset means off.
 */
public final class SystemRuleProperties {

  /** Most inbound calls per second. */
  private @Nullable Double maxQps;

  /** Most inbound calls inside at once. */
  private @Nullable Integer maxThreads;

  /** Highest mean response time of inbound calls; up to 1h. */
  private @Nullable Duration maxAvgRt;

  /** Highest system load average. */
  private @Nullable Double maxLoad;

  /** Highest CPU usage, in (0, 1]. */
  private @Nullable Double maxCpuUsage;

  /**
   * Whether the system rule is in shadow mode: it refuses no inbound call and counts what it would
   * have refused (meter weir.blocks.shadow, rule=system). Unset: weir.shadow.
   */
  private @Nullable Boolean shadow;

  public @Nullable Double getMaxQps() {
    return maxQps;
  }

  public void setMaxQps(@Nullable Double maxQps) {
    this.maxQps = maxQps;
  }

  public @Nullable Integer getMaxThreads() {
    return maxThreads;
  }

  public void setMaxThreads(@Nullable Integer maxThreads) {
    this.maxThreads = maxThreads;
  }

  public @Nullable Duration getMaxAvgRt() {
    return maxAvgRt;
  }

  public void setMaxAvgRt(@Nullable Duration maxAvgRt) {
    this.maxAvgRt = maxAvgRt;
  }

  public @Nullable Double getMaxLoad() {
    return maxLoad;
  }

  public void setMaxLoad(@Nullable Double maxLoad) {
    this.maxLoad = maxLoad;
  }

  public @Nullable Double getMaxCpuUsage() {
    return maxCpuUsage;
  }

  public void setMaxCpuUsage(@Nullable Double maxCpuUsage) {
    this.maxCpuUsage = maxCpuUsage;
  }

  public @Nullable Boolean getShadow() {
    return shadow;
  }

  public void setShadow(@Nullable Boolean shadow) {
    this.shadow = shadow;
  }

  /** Returns the rule, not in shadow mode unless {@code shadow} says so; inactive when no limit is set. */
  public SystemRule toRule() {
    return toRule(false);
  }

  /**
   * Returns the rule, in shadow mode when {@code shadow} says so or, unset, when
   * {@code shadowByDefault} ({@code weir.shadow}); {@link SystemRule#isActive()} is false when no
   * limit is set.
   */
  public SystemRule toRule(boolean shadowByDefault) {
    return new SystemRule(maxQps, maxThreads, maxAvgRt, maxLoad, maxCpuUsage,
        shadow != null ? shadow : shadowByDefault);
  }
}
