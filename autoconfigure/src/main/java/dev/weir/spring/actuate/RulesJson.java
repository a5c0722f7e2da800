package dev.weir.spring.actuate;

import dev.weir.CircuitState;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.SystemRule;
import dev.weir.spring.properties.RuleMaps;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes rules for the endpoint's JSON: what {@link RuleMaps} writes for {@code application.yml}
 * (the one place that knows a rule's keys and how each value is written: enum values as in YAML,
 * {@code warm-up}, durations as {@code 500ms}, {@code 10s}, {@code 1h}), with the keys in camelCase,
 * so that what the endpoint shows can be posted back.
 */
final class RulesJson {

  private RulesJson() {
  }

  /** Returns the rules as JSON objects, in order. */
  static List<Map<String, Object>> of(List<? extends ResourceRule> rules) {
    return rules.stream().map(rule -> camelCase(RuleMaps.of(rule))).toList();
  }

  /**
   * Returns the limits of the system rule that are on, and {@code shadow} (also when false); an empty
   * map when the system rule is off.
   */
  static Map<String, Object> system(SystemRule rule) {
    Map<String, Object> json = camelCase(RuleMaps.of(rule));
    if (rule.isActive()) {
      json.put("shadow", rule.shadow());
    }
    return json;
  }

  /** Returns the key of a kind in the endpoint's bodies: {@code flow}, {@code paramFlow}, {@code system}, ... */
  static String key(RuleKind kind) {
    return kind == RuleKind.PARAM_FLOW ? "paramFlow" : kind.tag();
  }

  /** Returns a circuit state as the meters tag it: {@code closed}, {@code open}, {@code half_open}. */
  static String circuitState(CircuitState state) {
    return state.name().toLowerCase(Locale.ROOT);
  }

  /** The same entries in the same order, each key from kebab-case to camelCase; the values as they are. */
  private static Map<String, Object> camelCase(Map<String, Object> yaml) {
    Map<String, Object> json = new LinkedHashMap<>();
    yaml.forEach((key, value) -> json.put(camelCase(key), value));
    return json;
  }

  /** {@code slow-call-threshold} is {@code slowCallThreshold}. */
  static String camelCase(String kebab) {
    StringBuilder camel = new StringBuilder(kebab.length());
    boolean upper = false;
    for (int i = 0; i < kebab.length(); i++) {
      char c = kebab.charAt(i);
      if (c == '-') {
        upper = true;
      } else {
        camel.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return camel.toString();
  }
}
