package dev.weir.rule;

import java.util.List;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Protection of the whole application, applied to inbound ({@code IN}) calls only. Each limit is
 * off when null. An inbound call is refused when:
 * <ul>
 *   <li>inbound passes in the last second reach {@code maxQps};
 *   <li>inbound calls inside reach {@code maxThreads};
 *   <li>the mean response time of inbound calls in the last second exceeds {@code maxAvgRt};
 *   <li>the system load average exceeds {@code maxLoad} <em>and</em> more than one inbound call is
 *       inside <em>and</em> more are inside than the application can complete (maximum success rate
 *       times minimum response time, as in TCP BBR): load alone does not refuse an idle service;
 *   <li>the CPU usage of the machine exceeds {@code maxCpuUsage} (a fraction in {@code (0, 1]}).
 * </ul>
 * Load and CPU are sampled once a second by a daemon thread that stops with the engine.
 *
 * @param maxQps inbound passes per second
 * @param maxThreads inbound calls inside at once
 * @param maxAvgRt mean response time of inbound calls
 * @param maxLoad one-minute system load average
 * @param maxCpuUsage CPU usage fraction
 * @param shadow whether the rule only counts the inbound calls it would refuse (see
 *     {@link Rule#shadow()}); counted on the resource of each such call
 */
public record SystemRule(
    @Nullable Double maxQps,
    @Nullable Integer maxThreads,
    @Nullable Duration maxAvgRt,
    @Nullable Double maxLoad,
    @Nullable Double maxCpuUsage,
    boolean shadow)
    implements Rule {

  /** A rule with every limit off. */
  public static final SystemRule NONE = new SystemRule(null, null, null, null, null);

  /** A rule that is not in shadow mode. */
  public SystemRule(@Nullable Double maxQps, @Nullable Integer maxThreads, @Nullable Duration maxAvgRt,
      @Nullable Double maxLoad, @Nullable Double maxCpuUsage) {
    this(maxQps, maxThreads, maxAvgRt, maxLoad, maxCpuUsage, false);
  }

  @Override
  public SystemRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : new SystemRule(maxQps, maxThreads, maxAvgRt, maxLoad, maxCpuUsage, shadow);
  }

  /** Returns {@link RuleKind#SYSTEM}. */
  @Override
  public RuleKind kind() {
    return RuleKind.SYSTEM;
  }

  /** Returns whether any limit is on (in shadow mode or not). */
  /**
   * Returns every problem of this rule ({@code max-cpu-usage}, ...), without changing anything; an
   * empty list when it is valid. A rule with problems is refused by an engine.
   */
  public List<RuleViolation> validate() {
    return SystemRuleValidator.validate(this);
  }

  public boolean isActive() {
    return maxQps != null || maxThreads != null || maxAvgRt != null || maxLoad != null || maxCpuUsage != null;
  }
}
