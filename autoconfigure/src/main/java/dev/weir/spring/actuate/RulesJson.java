package dev.weir.spring.actuate;

import dev.weir.CircuitState;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.AuthorityRule;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.SystemRule;
import dev.weir.spring.properties.RuleMaps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes rules as the YAML keys in camelCase, with enum values as in YAML ({@code warm-up}) and
 * durations as {@code 500ms}, {@code 10s}, {@code 1h}: what the endpoint shows can be posted back.
 */
final class RulesJson {

  private RulesJson() {
  }

  static List<Map<String, Object>> flow(List<FlowRule> rules) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (FlowRule rule : rules) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("resource", rule.resource());
      putIfSet(json, "name", rule.name());
      if (rule.grade() == FlowGrade.ADAPTIVE) { // the limit is measured: its bounds instead of a count
        json.put("minLimit", rule.minLimit());
        json.put("maxLimit", rule.maxLimit());
        json.put("initialLimit", rule.initialLimit());
      } else {
        json.put("count", number(rule.count()));
      }
      json.put("grade", name(rule.grade()));
      json.put("interval", duration(rule.interval()));
      json.put("exact", rule.exact());
      json.put("controlBehavior", name(rule.controlBehavior()));
      json.put("warmUpPeriod", duration(rule.warmUpPeriod()));
      json.put("coldFactor", rule.coldFactor());
      json.put("maxQueueingTime", duration(rule.maxQueueingTime()));
      json.put("strategy", name(rule.strategy()));
      putIfSet(json, "refResource", rule.refResource());
      json.put("limitApp", rule.limitApp());
      json.put("clusterMode", rule.clusterMode());
      json.put("shadow", rule.shadow());
      out.add(json);
    }
    return out;
  }

  static List<Map<String, Object>> degrade(List<DegradeRule> rules) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (DegradeRule rule : rules) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("resource", rule.resource());
      json.put("strategy", name(rule.strategy()));
      json.put("threshold", number(rule.threshold()));
      json.put("slowCallThreshold", duration(rule.slowCallThreshold()));
      json.put("minRequestAmount", rule.minRequestAmount());
      json.put("statInterval", duration(rule.statInterval()));
      json.put("openDuration", duration(rule.openDuration()));
      json.put("shadow", rule.shadow());
      out.add(json);
    }
    return out;
  }

  static List<Map<String, Object>> paramFlow(List<ParamFlowRule> rules) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ParamFlowRule rule : rules) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("resource", rule.resource());
      putIfSet(json, "name", rule.name());
      if (rule.key() != null) {
        json.put("key", rule.key());
      } else {
        json.put("paramIndex", rule.paramIndex());
      }
      json.put("nullKey", name(rule.nullKey()));
      json.put("grade", name(rule.grade()));
      json.put("count", number(rule.count()));
      json.put("duration", duration(rule.duration()));
      json.put("burst", rule.burst());
      json.put("controlBehavior", name(rule.controlBehavior()));
      json.put("maxQueueingTime", duration(rule.maxQueueingTime()));
      List<Map<String, Object>> exceptions = new ArrayList<>();
      for (ParamFlowItem item : rule.exceptions()) {
        Map<String, Object> exception = new LinkedHashMap<>();
        exception.put("value", item.value());
        exception.put("count", number(item.count()));
        exceptions.add(exception);
      }
      json.put("exceptions", exceptions);
      json.put("clusterMode", rule.clusterMode());
      json.put("shadow", rule.shadow());
      out.add(json);
    }
    return out;
  }

  static List<Map<String, Object>> authority(List<AuthorityRule> rules) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (AuthorityRule rule : rules) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("resource", rule.resource());
      json.put("strategy", name(rule.strategy()));
      json.put("limitApp", rule.limitApp());
      json.put("shadow", rule.shadow());
      out.add(json);
    }
    return out;
  }

  /** Returns the limits that are on, and {@code shadow}; an empty map when the system rule is off. */
  static Map<String, Object> system(SystemRule rule) {
    Map<String, Object> json = new LinkedHashMap<>();
    putIfSet(json, "maxQps", rule.maxQps() == null ? null : number(rule.maxQps()));
    putIfSet(json, "maxThreads", rule.maxThreads());
    putIfSet(json, "maxAvgRt", rule.maxAvgRt() == null ? null : duration(rule.maxAvgRt()));
    putIfSet(json, "maxLoad", rule.maxLoad() == null ? null : number(rule.maxLoad()));
    putIfSet(json, "maxCpuUsage", rule.maxCpuUsage() == null ? null : number(rule.maxCpuUsage()));
    if (rule.isActive()) {
      json.put("shadow", rule.shadow());
    }
    return json;
  }

  /** The duration as YAML writes it ({@code 500ms}, {@code 10s}, {@code 1h}): {@link RuleMaps#duration}. */
  static String duration(Duration duration) {
    return RuleMaps.duration(duration);
  }

  /** A whole number as a {@code long}, else the double: {@link RuleMaps#number}. */
  static Number number(double value) {
    return RuleMaps.number(value);
  }

  /** An enum constant as written in YAML: {@link RuleMaps#name}. */
  static String name(Enum<?> value) {
    return RuleMaps.name(value);
  }

  /** Returns the key of a kind in the endpoint's bodies: {@code flow}, {@code paramFlow}, {@code system}, ... */
  static String key(RuleKind kind) {
    return kind == RuleKind.PARAM_FLOW ? "paramFlow" : kind.tag();
  }

  /** Returns a circuit state as the meters tag it: {@code closed}, {@code open}, {@code half_open}. */
  static String circuitState(CircuitState state) {
    return state.name().toLowerCase(Locale.ROOT);
  }

  private static void putIfSet(Map<String, Object> json, String key, @Nullable Object value) {
    if (value != null) {
      json.put(key, value);
    }
  }
}
