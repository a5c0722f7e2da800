package dev.weir.internal.call;

import dev.weir.SystemStatus;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.rule.SystemRule;
import org.jspecify.annotations.Nullable;

/**
 * Whole-application protection: the system rule in force, the statistics of all inbound calls it
 * reads, and the sampler of load and CPU, which runs only while the rule needs it. Read by
 * {@link SystemSlot} on every inbound call of a resource whose chain has it; written by
 * {@link RuleBook} under its lock.
 */
public final class SystemProtection {

  public final StatisticNode inbound;
  private final SystemSampler sampler;
  private volatile SystemRule rule = SystemRule.NONE;
  /**
   * The refusals of {@link #rule} when it is in shadow mode; written before the rule, so that a
   * reader of a shadow rule finds them.
   */
  private volatile @Nullable ShadowRefusals shadow;

  public SystemProtection(int sampleCount, SystemStatus status) {
    this.inbound = new StatisticNode(sampleCount);
    this.sampler = new SystemSampler(status);
  }

  SystemRule rule() {
    return rule;
  }

  /**
   * The refusals of the rule in force, which is in shadow mode; null when it is in force for real.
   * Read after {@link #rule()}: a call that read a shadow rule finds that rule's (or a newer shadow
   * rule's) refusals, or null if a real rule replaced it meanwhile, and then refuses for real.
   */
  @Nullable ShadowRefusals shadow() {
    return shadow;
  }

  boolean isActive() {
    return rule.isActive();
  }

  /** Puts {@code next} (validated) in force, and samples load and CPU only while it reads them. */
  void replace(SystemRule next) {
    shadow = next.shadow() ? new ShadowRefusals(next, "inbound calls") : null;
    rule = next;
    sampler.configure(next.maxLoad() != null || next.maxCpuUsage() != null);
  }

  double load() {
    return sampler.load();
  }

  double cpuUsage() {
    return sampler.cpuUsage();
  }

  /** Reads load and CPU now instead of waiting for the next sample (tests). */
  public void sampleNow() {
    sampler.sample();
  }

  /** Stops sampling. */
  public void close() {
    sampler.configure(false);
  }
}
