package dev.weir;

import dev.weir.rule.SystemRule;

/**
 * Whole-application protection: the system rule in force, the statistics of all inbound calls it
 * reads, and the sampler of load and CPU, which runs only while the rule needs it. Read by
 * {@link SystemSlot} on every inbound call of a resource whose chain has it; written by
 * {@link RuleBook} under its lock.
 */
final class SystemProtection {

  final StatisticNode inbound;
  private final SystemSampler sampler;
  private volatile SystemRule rule = SystemRule.NONE;

  SystemProtection(int sampleCount, SystemStatus status) {
    this.inbound = new StatisticNode(sampleCount);
    this.sampler = new SystemSampler(status);
  }

  SystemRule rule() {
    return rule;
  }

  boolean isActive() {
    return rule.isActive();
  }

  /** Puts {@code next} (validated) in force, and samples load and CPU only while it reads them. */
  void replace(SystemRule next) {
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
  void sampleNow() {
    sampler.sample();
  }

  /** Stops sampling. */
  void close() {
    sampler.configure(false);
  }
}
