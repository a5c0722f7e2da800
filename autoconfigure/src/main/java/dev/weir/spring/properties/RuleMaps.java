package dev.weir.spring.properties;

import dev.weir.rule.FlowGrade;
import dev.weir.rule.AuthorityRule;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.SystemRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes engine rules as {@code application.yml} has them: the kebab-case keys of
 * {@code weir.flow[*]} and the other lists, enum values as in YAML ({@code warm-up}) and durations
 * such as {@code 500ms}, {@code 10s}, {@code 1h}. What it writes binds back to equal rules; the
 * rule file's write-back and the logs of rule changes use it.
 */
public final class RuleMaps {

  private RuleMaps() {
  }

  /** Returns one rule of any per-resource kind as its YAML keys and values. */
  public static Map<String, Object> of(ResourceRule rule) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("resource", rule.resource());
    if (rule instanceof FlowRule flow) {
      putIfSet(map, "name", flow.name());
      if (flow.grade() == FlowGrade.ADAPTIVE) { // the limit is measured: its bounds instead of a count
        map.put("min-limit", flow.minLimit());
        map.put("max-limit", flow.maxLimit());
        map.put("initial-limit", flow.initialLimit());
      } else {
        map.put("count", number(flow.count()));
      }
      map.put("grade", name(flow.grade()));
      map.put("interval", duration(flow.interval()));
      map.put("exact", flow.exact());
      map.put("control-behavior", name(flow.controlBehavior()));
      map.put("warm-up-period", duration(flow.warmUpPeriod()));
      map.put("cold-factor", flow.coldFactor());
      map.put("max-queueing-time", duration(flow.maxQueueingTime()));
      if (flow.maxQueueingCount() != 0) {
        map.put("max-queueing-count", flow.maxQueueingCount());
      }
      map.put("strategy", name(flow.strategy()));
      putIfSet(map, "ref-resource", flow.refResource());
      map.put("limit-app", flow.limitApp());
      map.put("cluster-mode", flow.clusterMode());
    } else if (rule instanceof DegradeRule degrade) {
      map.put("strategy", name(degrade.strategy()));
      map.put("threshold", number(degrade.threshold()));
      map.put("slow-call-threshold", duration(degrade.slowCallThreshold()));
      map.put("min-request-amount", degrade.minRequestAmount());
      map.put("stat-interval", duration(degrade.statInterval()));
      map.put("open-duration", duration(degrade.openDuration()));
      if (degrade.countBased()) {
        map.put("window", degrade.windowCalls() + " calls");
      }
    } else if (rule instanceof ParamFlowRule param) {
      putIfSet(map, "name", param.name());
      if (param.key() != null) {
        map.put("key", param.key());
      } else {
        map.put("param-index", param.paramIndex());
      }
      map.put("null-key", name(param.nullKey()));
      map.put("grade", name(param.grade()));
      map.put("count", number(param.count()));
      map.put("duration", duration(param.duration()));
      map.put("burst", param.burst());
      map.put("control-behavior", name(param.controlBehavior()));
      map.put("max-queueing-time", duration(param.maxQueueingTime()));
      List<Map<String, Object>> exceptions = new ArrayList<>();
      for (ParamFlowItem item : param.exceptions()) {
        Map<String, Object> exception = new LinkedHashMap<>();
        exception.put("value", item.value());
        exception.put("count", number(item.count()));
        exceptions.add(exception);
      }
      map.put("exceptions", exceptions);
      map.put("cluster-mode", param.clusterMode());
    } else if (rule instanceof AuthorityRule authority) {
      map.put("strategy", name(authority.strategy()));
      map.put("limit-app", new ArrayList<>(authority.limitApp()));
      map.put("allow-no-origin", authority.allowNoOrigin());
    }
    map.put("shadow", rule.shadow()); // explicit, so that a rule written back stays as it was in force
    return map;
  }

  /** Returns the limits of a system rule that are set, as the keys of {@code weir.system}. */
  public static Map<String, Object> of(SystemRule rule) {
    Map<String, Object> map = new LinkedHashMap<>();
    putIfSet(map, "max-qps", rule.maxQps() == null ? null : number(rule.maxQps()));
    putIfSet(map, "max-threads", rule.maxThreads());
    putIfSet(map, "max-avg-rt", rule.maxAvgRt() == null ? null : duration(rule.maxAvgRt()));
    putIfSet(map, "max-load", rule.maxLoad() == null ? null : number(rule.maxLoad()));
    putIfSet(map, "max-cpu-usage", rule.maxCpuUsage() == null ? null : number(rule.maxCpuUsage()));
    if (!map.isEmpty() && rule.shadow()) {
      map.put("shadow", true);
    }
    return map;
  }

  /** Returns the rules as maps, in order. */
  public static List<Map<String, Object>> of(List<? extends ResourceRule> rules) {
    return rules.stream().map(RuleMaps::of).toList();
  }

  /**
   * Returns the duration in the largest of {@code d}, {@code h}, {@code m}, {@code s}, {@code ms},
   * {@code us}, {@code ns} that holds it whole ({@code 500ms}, {@code 10s}); Spring Boot reads
   * each back.
   */
  public static String duration(Duration duration) {
    if (duration.isZero()) {
      return "0ms";
    }
    long nanos;
    try {
      nanos = duration.toNanos();
    } catch (ArithmeticException tooLong) {
      return duration.toSeconds() % 86_400 == 0 ? duration.toDays() + "d" : duration.toSeconds() + "s";
    }
    long[] units = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
    String[] suffixes = {"d", "h", "m", "s", "ms", "us"};
    for (int i = 0; i < units.length; i++) {
      if (nanos % units[i] == 0) {
        return nanos / units[i] + suffixes[i];
      }
    }
    return nanos + "ns";
  }

  /** Returns a whole number as a {@code long} ({@code 5}, not {@code 5.0}), else the double. */
  public static Number number(double value) {
    if (value == Math.rint(value) && !Double.isInfinite(value) && Math.abs(value) < 1e15) {
      return (long) value;
    }
    return value;
  }

  /** Returns an enum constant as written in YAML: {@code WARM_UP_QUEUE} is {@code warm-up-queue}; null is empty. */
  public static String name(@Nullable Enum<?> value) {
    return value == null ? "" : value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static void putIfSet(Map<String, Object> map, String key, @Nullable Object value) {
    if (value != null) {
      map.put(key, value);
    }
  }
}
