package dev.weir.spring.actuate;

import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.WeirProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Rules posted to the endpoint, each kind a JSON list of rules (as text: actuator operations take
 * string arguments), bound onto the property classes of {@code application.yml} by Spring Boot's
 * {@link Binder}: the same relaxed names ({@code maxQueueingTime} or
 * {@code max-queueing-time}), durations ({@code 500ms}, {@code PT1H}) and enum values
 * ({@code warm-up}, {@code WARM_UP}) as at start. A rule without {@code resource} is for the
 * resource of the request. Fields that no rule has, and values that cannot be converted, are
 * violations named like {@code flow[0].interval}.
 */
final class PostedRules {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  final @Nullable List<WeirProperties.Flow> flow;
  final @Nullable List<WeirProperties.Degrade> degrade;
  final @Nullable List<WeirProperties.ParamFlow> paramFlow;
  final @Nullable List<WeirProperties.Authority> authority;
  final List<RuleViolation> violations;

  private PostedRules(String resource, @Nullable String flow, @Nullable String degrade,
      @Nullable String paramFlow, @Nullable String authority) {
    List<RuleViolation> found = new ArrayList<>();
    this.flow = bind(resource, "flow", flow, WeirProperties.Flow.class, found);
    this.degrade = bind(resource, "degrade", degrade, WeirProperties.Degrade.class, found);
    this.paramFlow = bind(resource, "param-flow", paramFlow, WeirProperties.ParamFlow.class, found);
    this.authority = bind(resource, "authority", authority, WeirProperties.Authority.class, found);
    this.violations = List.copyOf(found);
  }

  /** Binds each list given; a kind not given (null) stays null. */
  static PostedRules bind(String resource, @Nullable String flow, @Nullable String degrade,
      @Nullable String paramFlow, @Nullable String authority) {
    return new PostedRules(resource, flow, degrade, paramFlow, authority);
  }

  private static <T> @Nullable List<T> bind(String resource, String kind, @Nullable String json, Class<T> type,
      List<RuleViolation> violations) {
    if (json == null) {
      return null;
    }
    Object parsed;
    try {
      parsed = JSON.readValue(json, Object.class);
    } catch (JacksonException ex) {
      violations.add(new RuleViolation(kind, "must be a JSON list of rules: " + ex.getOriginalMessage()));
      return List.of();
    }
    if (parsed == null) {
      return null;
    }
    if (!(parsed instanceof List<?> posted)) {
      violations.add(new RuleViolation(kind, "must be a list of rules, [] for none"));
      return List.of();
    }
    MapConfigurationPropertySource source = new MapConfigurationPropertySource();
    Map<ConfigurationPropertyName, String> postedNames = new HashMap<>();
    boolean shaped = true;
    for (int i = 0; i < posted.size(); i++) {
      String name = kind + "[" + i + "]";
      if (!(posted.get(i) instanceof Map<?, ?> rule)) {
        violations.add(new RuleViolation(name, "must be an object with the fields of a " + kind + " rule"));
        shaped = false;
        continue;
      }
      if (!rule.containsKey("resource")) {
        source.put(name + ".resource", resource);
      }
      flatten(name, rule, source, postedNames);
    }
    if (!shaped) {
      return List.of();
    }
    try {
      BindHandler handler = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
      return new Binder(source).bind(kind, Bindable.listOf(type), handler).orElseGet(List::of);
    } catch (BindException ex) {
      violations.addAll(violations(ex, postedNames));
      return List.of();
    }
  }

  private static void flatten(String name, @Nullable Object value, MapConfigurationPropertySource source,
      Map<ConfigurationPropertyName, String> postedNames) {
    if (value instanceof Map<?, ?> map) {
      map.forEach((key, nested) -> flatten(name + "." + key, nested, source, postedNames));
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        flatten(name + "[" + i + "]", list.get(i), source, postedNames);
      }
    } else if (value != null) {
      source.put(name, value);
      postedNames.put(ConfigurationPropertyName.adapt(name, '.'), name);
    }
  }

  /** Returns the problems of a failed binding, each field named as it was posted. */
  private static List<RuleViolation> violations(BindException ex, Map<ConfigurationPropertyName, String> posted) {
    if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
      return unbound.getUnboundProperties().stream().sorted()
          .map(property -> new RuleViolation(asPosted(property.getName(), posted),
              "no rule of this kind has this field"))
          .toList();
    }
    ConfigurationProperty property = ex.getProperty();
    String field = asPosted(property != null ? property.getName() : ex.getName(), posted);
    Object value = property != null ? property.getValue() : null;
    Class<?> type = ex.getTarget().getType().resolve(Object.class);
    return List.of(new RuleViolation(field, "must be " + expected(type) + ", was '" + value + "'"));
  }

  private static String asPosted(ConfigurationPropertyName name, Map<ConfigurationPropertyName, String> posted) {
    return posted.getOrDefault(name, name.toString());
  }

  private static String expected(Class<?> type) {
    if (type.isEnum()) {
      return "one of " + Arrays.stream(type.getEnumConstants())
          .map(constant -> RulesJson.name((Enum<?>) constant))
          .collect(Collectors.joining(", "));
    }
    if (type == Duration.class) {
      return "a duration such as 500ms, 10s, 1m, 1h or PT1H";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "a whole number";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "a number";
    }
    return "a value of type " + type.getSimpleName();
  }
}
