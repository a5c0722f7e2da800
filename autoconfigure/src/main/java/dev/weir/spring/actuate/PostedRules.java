package dev.weir.spring.actuate;

import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.AuthorityRuleProperties;
import dev.weir.spring.properties.BindFailures;
import dev.weir.spring.properties.DegradeRuleProperties;
import dev.weir.spring.properties.FlowRuleProperties;
import dev.weir.spring.properties.ParamFlowRuleProperties;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.Spelling;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The body posted to the write operation of the {@code weir} endpoint, a JSON object such as
 * {@code {"flow": [...], "degrade": [...]}}, read onto the property classes of
 * {@code application.yml} by Spring Boot's {@link Binder}: the same relaxed names
 * ({@code maxQueueingTime} or {@code max-queueing-time}), durations ({@code 500ms}, {@code PT1H})
 * and enum values ({@code warm-up}, {@code WARM_UP}) as at start. Each kind is a list of rules, or
 * the JSON text of one. A rule without {@code resource} is for the resource of the request. Keys at
 * the top that are not a kind ({@link #unknownKinds}), fields that no rule has and values that
 * cannot be converted ({@link #bindingViolations}) are violations named like {@code degarde} and
 * {@code flow[0].interval}.
 */
final class PostedRules {

  /** The kinds of rules the body takes, as named at its top. */
  static final List<String> KINDS = List.of("flow", "degrade", "paramFlow", "authority");

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final @Nullable List<FlowRuleProperties> flow;
  private final @Nullable List<DegradeRuleProperties> degrade;
  private final @Nullable List<ParamFlowRuleProperties> paramFlow;
  private final @Nullable List<AuthorityRuleProperties> authority;
  private final List<RuleViolation> unknownKinds;
  private final List<RuleViolation> bindingViolations;

  private PostedRules(@Nullable List<FlowRuleProperties> flow, @Nullable List<DegradeRuleProperties> degrade,
      @Nullable List<ParamFlowRuleProperties> paramFlow, @Nullable List<AuthorityRuleProperties> authority,
      List<RuleViolation> unknownKinds, List<RuleViolation> bindingViolations) {
    this.flow = flow;
    this.degrade = degrade;
    this.paramFlow = paramFlow;
    this.authority = authority;
    this.unknownKinds = List.copyOf(unknownKinds);
    this.bindingViolations = List.copyOf(bindingViolations);
  }

  /**
   * Reads a posted body.
   *
   * @param resource the resource of the request, for rules that name none
   * @param body the JSON object posted, as text; null when there was none
   */
  static PostedRules read(String resource, @Nullable String body) {
    if (body == null) {
      return refused(List.of());
    }
    Object parsed;
    try {
      parsed = JSON.readValue(body, Object.class);
    } catch (JacksonException ex) {
      return refused(List.of(new RuleViolation("body", "must be a JSON object: " + ex.getOriginalMessage())));
    }
    if (!(parsed instanceof Map<?, ?> map)) {
      return refused(List.of(new RuleViolation("body", "must be a JSON object with " + String.join(", ", KINDS)
          + ", a list of rules each")));
    }
    List<RuleViolation> unknown = new ArrayList<>();
    for (Object key : map.keySet()) {
      if (!KINDS.contains(String.valueOf(key))) {
        unknown.add(unknownKind(String.valueOf(key)));
      }
    }
    List<RuleViolation> found = new ArrayList<>();
    return new PostedRules(
        bind(resource, "flow", map.get("flow"), FlowRuleProperties.class, found),
        bind(resource, "degrade", map.get("degrade"), DegradeRuleProperties.class, found),
        bind(resource, "param-flow", map.get("paramFlow"), ParamFlowRuleProperties.class, found),
        bind(resource, "authority", map.get("authority"), AuthorityRuleProperties.class, found),
        unknown, found);
  }

  private static PostedRules refused(List<RuleViolation> violations) {
    return new PostedRules(null, null, null, null, List.of(), violations);
  }

  /** Whether the body gives no kind of rules at all. */
  boolean givesNoKind() {
    return flow == null && degrade == null && paramFlow == null && authority == null;
  }

  /** Returns a violation for each key at the top of the body that is not a kind of rules. */
  List<RuleViolation> unknownKinds() {
    return unknownKinds;
  }

  /** Returns the fields no rule has and the values that could not be converted. */
  List<RuleViolation> bindingViolations() {
    return bindingViolations;
  }

  /** Returns the rules given, a kind not given as an empty list. */
  RuleLists lists() {
    return new RuleLists(orEmpty(flow), orEmpty(degrade), orEmpty(paramFlow), orEmpty(authority));
  }

  /**
   * Returns the rules in force after the replacement: of each kind given, the given rules; of the
   * others, those of {@code current}.
   */
  RuleSet applyTo(RuleSet given, RuleSet current) {
    return new RuleSet(
        flow != null ? given.flow() : current.flow(),
        degrade != null ? given.degrade() : current.degrade(),
        paramFlow != null ? given.paramFlow() : current.paramFlow(),
        authority != null ? given.authority() : current.authority());
  }

  /** Whether the body gives rules of {@code kind} ({@code flow}, {@code degrade}, {@code param-flow}, {@code authority}). */
  boolean gives(String kind) {
    return switch (kind) {
      case "flow" -> flow != null;
      case "degrade" -> degrade != null;
      case "param-flow" -> paramFlow != null;
      case "authority" -> authority != null;
      default -> false;
    };
  }

  /** Returns the kinds the body gives. */
  Set<RuleKind> kinds() {
    Set<RuleKind> kinds = EnumSet.noneOf(RuleKind.class);
    for (RuleKind kind : List.of(RuleKind.FLOW, RuleKind.DEGRADE, RuleKind.PARAM_FLOW, RuleKind.AUTHORITY)) {
      if (gives(kind.tag())) {
        kinds.add(kind);
      }
    }
    return kinds;
  }

  private static <T> List<T> orEmpty(@Nullable List<T> list) {
    return list != null ? list : List.of();
  }

  /**
   * Names a key at the top of the body that is not a kind of rules: a misspelt kind would otherwise
   * be dropped, and its rules silently kept as they were.
   */
  private static RuleViolation unknownKind(String name) {
    String meant = KINDS.stream().filter(kind -> looksLike(name, kind)).findFirst()
        .map(kind -> " (did you mean '" + kind + "'?)").orElse("");
    String note = "resource".equals(name) ? " (the resource is the one named in the path)" : meant;
    return new RuleViolation(name, "is not a kind of rules" + note + "; the body takes "
        + String.join(", ", KINDS) + ", a list of rules each");
  }

  /** Whether {@code name} is {@code kind} written otherwise ({@code param-flow}) or with one or two typos. */
  private static boolean looksLike(String name, String kind) {
    String plain = name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    String target = kind.toLowerCase(Locale.ROOT);
    return plain.equals(target) || Spelling.distance(plain, target) <= 2;
  }

  private static <T> @Nullable List<T> bind(String resource, String kind, @Nullable Object value, Class<T> type,
      List<RuleViolation> violations) {
    Object parsed = value;
    if (value instanceof String json) {
      try {
        parsed = JSON.readValue(json, Object.class);
      } catch (JacksonException ex) {
        violations.add(new RuleViolation(kind, "must be a JSON list of rules: " + ex.getOriginalMessage()));
        return List.of();
      }
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
      violations.addAll(BindFailures.violations(ex, name -> asPosted(name, postedNames)));
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

  private static String asPosted(ConfigurationPropertyName name, Map<ConfigurationPropertyName, String> posted) {
    return posted.getOrDefault(name, name.toString());
  }
}
