package dev.weir.internal.call;

import dev.weir.EntryType;
import dev.weir.rule.RuleKind;
import dev.weir.rule.SystemRule;
import dev.weir.spi.SlotOrder;

/**
 * Whole-application protection for inbound calls; see {@link SystemRule} for when a call is refused.
 * It reads the engine's inbound statistics as they are before this call (statistics record a pass
 * only once every slot admitted it). The thread limit is a check, not a reservation: under a burst,
 * a few calls more than {@code max-threads} may be inside at once.
 *
 * <p>A system rule in shadow mode counts a call it would refuse as a shadow refusal on the call's
 * resource and lets it go on.
 */
public final class SystemSlot extends Slot {

  private final SystemProtection system;

  public SystemSlot(SystemProtection system) {
    super(SlotOrder.SYSTEM, ENTRY);
    this.system = system;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return system.isActive();
  }

  @Override
  boolean entry(Call call) {
    if (call.entryType != EntryType.IN) {
      return true;
    }
    SystemRule rule = system.rule();
    StatisticNode inbound = system.inbound;
    long now = call.startNanos;
    if (rule.maxQps() != null && inbound.passQps(now) + call.acquireCount > rule.maxQps()) {
      return refuse(call, rule);
    }
    long inside = inbound.activeCalls();
    if (rule.maxThreads() != null && inside >= rule.maxThreads()) {
      return refuse(call, rule);
    }
    if (rule.maxAvgRt() != null && inbound.avgRtMillis(now) * 1e6 > rule.maxAvgRt().toNanos()) {
      return refuse(call, rule);
    }
    if (rule.maxLoad() != null && system.load() > rule.maxLoad() && overCapacity(inbound, inside, now)) {
      return refuse(call, rule);
    }
    if (rule.maxCpuUsage() != null && system.cpuUsage() > rule.maxCpuUsage()) {
      return refuse(call, rule);
    }
    return true;
  }

  /**
   * BBR's test: more calls inside than the application completes in one minimal response time at
   * its best recent rate (Little's law), and more than one. An idle service is never refused for
   * load that others cause.
   */
  private boolean overCapacity(StatisticNode inbound, long inside, long now) {
    if (inside <= 1) {
      return false;
    }
    double maxSuccessPerSecond = inbound.maxSuccessPerBucket(now) * (double) inbound.sampleCount;
    double minRtSeconds = inbound.minRtMillis(now) / 1000.0;
    return inside > maxSuccessPerSecond * minRtSeconds;
  }

  /** Refuses the call, or, for a rule in shadow mode, counts what it would refuse and lets it go on. */
  private boolean refuse(Call call, SystemRule rule) {
    return call.refuseUnlessShadow(rule.shadow() ? system.shadow() : null, RuleKind.SYSTEM, rule, 0);
  }
}
