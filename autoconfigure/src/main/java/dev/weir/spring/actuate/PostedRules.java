package dev.weir.spring.actuate;

import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.AuthorityRuleProperties;
import dev.weir.spring.properties.DegradeRuleProperties;
import dev.weir.spring.properties.FlowRuleProperties;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.properties.ParamFlowRuleProperties;
import dev.weir.spring.properties.RuleBinding;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.Spelling;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
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
 *
 * <p>Every body is hostile until read: one over {@link InputLimits#MAX_BYTES} or nested deeper than
 * {@link InputLimits#MAX_DEPTH} is refused before it is parsed (or while, for the depth), one with
 * more than {@link InputLimits#MAX_WRITE_ENTRIES} rules and list entries before it is bound, an
 * object with more than {@link InputLimits#MAX_FIELDS} fields before it is bound; binding stops
 * after {@link InputLimits#MAX_PROBLEMS} problems; and each rule is bound alone
 * ({@link RuleBinding}). So reading a body costs time linear in its size, and little.
 * Whatever the body, the outcome is rules or violations, never an exception.
 */
final class PostedRules {

  /** The kinds of rules the body takes, as named at its top. */
  static final List<String> KINDS = List.of("flow", "degrade", "paramFlow", "authority");

  /** A field's name as a rule may have it: letters, digits, {@code -} and {@code _}, at most 100. */
  private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,99}");

  /**
   * Reads posted JSON within {@link InputLimits}: the nesting depth is checked while parsing, so
   * that no body can make the parser, or the flattening after it, recurse deeply.
   */
  static final JsonMapper JSON = JsonMapper.builder(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder()
          .maxNestingDepth(InputLimits.MAX_DEPTH)
          .maxDocumentLength(InputLimits.MAX_BYTES)
          .maxStringLength(InputLimits.MAX_BYTES)
          .build())
      .build()).build();

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
    if (body.length() > InputLimits.MAX_BYTES) {
      return refused(List.of(new RuleViolation("body", "is over " + InputLimits.MAX_BYTES_TEXT
          + ", the most the weir endpoint reads")));
    }
    Object parsed;
    try {
      parsed = JSON.readValue(body, Object.class);
    } catch (RuntimeException ex) {
      return refused(List.of(new RuleViolation("body", "must be a JSON object: " + reason(ex))));
    }
    if (!(parsed instanceof Map<?, ?> map)) {
      return refused(List.of(new RuleViolation("body", "must be a JSON object with " + String.join(", ", KINDS)
          + ", a list of rules each")));
    }
    return of(resource, map);
  }

  /**
   * Reads the rules of one resource already parsed (within {@link InputLimits#MAX_DEPTH}), as
   * {@link #read} reads a body: a document of the rules store holds such an object per resource.
   */
  static PostedRules of(String resource, Map<?, ?> map) {
    List<RuleViolation> unknown = new ArrayList<>();
    for (Object key : map.keySet()) {
      if (!KINDS.contains(String.valueOf(key))) {
        unknown.add(unknownKind(String.valueOf(key)));
      }
    }
    List<RuleViolation> found = new ArrayList<>();
    Object flow = parsed("flow", map.get("flow"), found);
    Object degrade = parsed("degrade", map.get("degrade"), found);
    Object paramFlow = parsed("param-flow", map.get("paramFlow"), found);
    Object authority = parsed("authority", map.get("authority"), found);
    long entries = entries(flow) + entries(degrade) + entries(paramFlow) + entries(authority);
    if (entries > InputLimits.MAX_WRITE_ENTRIES) {
      found.add(new RuleViolation("body", "holds " + entries + " rules and entries of their lists;"
          + " a write takes at most " + InputLimits.MAX_WRITE_ENTRIES));
    }
    if (!found.isEmpty()) {
      return new PostedRules(null, null, null, null, unknown, found);
    }
    return new PostedRules(
        bind(resource, "flow", flow, FlowRuleProperties.class, found),
        bind(resource, "degrade", degrade, DegradeRuleProperties.class, found),
        bind(resource, "param-flow", paramFlow, ParamFlowRuleProperties.class, found),
        bind(resource, "authority", authority, AuthorityRuleProperties.class, found),
        unknown, found);
  }

  /** A kind's value, its JSON text parsed when it is given as text; a violation when that is not JSON. */
  private static @Nullable Object parsed(String kind, @Nullable Object value, List<RuleViolation> violations) {
    if (!(value instanceof String json)) {
      return value;
    }
    try {
      return JSON.readValue(json, Object.class);
    } catch (RuntimeException ex) {
      violations.add(new RuleViolation(kind, "must be a JSON list of rules: " + reason(ex)));
      return null;
    }
  }

  /** Counts the entries of every list in {@code value}, at any depth (bounded by the parser's). */
  private static long entries(@Nullable Object value) {
    long count = 0;
    if (value instanceof List<?> list) {
      count += list.size();
      for (Object entry : list) {
        count += entries(entry);
      }
    } else if (value instanceof Map<?, ?> map) {
      for (Object field : map.values()) {
        count += entries(field);
      }
    }
    return count;
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
    if (name.isBlank()) {
      return new RuleViolation("body", "has a field with " + (name.isEmpty() ? "an empty name" : "a blank name")
          + ", which is not a kind of rules; the body takes " + String.join(", ", KINDS) + ", a list of rules each");
    }
    String meant = KINDS.stream().filter(kind -> looksLike(name, kind)).findFirst()
        .map(Spelling::didYouMean).orElse("");
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

  /**
   * Binds the rules of one kind, each alone ({@link RuleBinding}: linear in the number of rules).
   * Returns null when the kind is not given, an empty list when it has problems (added to
   * {@code violations}), else the rules. {@code value} is already parsed.
   */
  private static <T> @Nullable List<T> bind(String resource, String kind, @Nullable Object value, Class<T> type,
      List<RuleViolation> violations) {
    Object parsed = value;
    if (parsed == null) {
      return null;
    }
    if (!(parsed instanceof List<?> posted)) {
      violations.add(new RuleViolation(kind, "must be a list of rules, [] for none"));
      return List.of();
    }
    int before = violations.size();
    List<T> rules = new ArrayList<>(posted.size());
    for (int i = 0; i < posted.size(); i++) {
      String name = kind + "[" + i + "]";
      if (violations.size() >= InputLimits.MAX_PROBLEMS) {
        if (violations.stream().noneMatch(v -> v.field().equals("body"))) {
          violations.add(new RuleViolation("body", "has more problems than the " + InputLimits.MAX_PROBLEMS
              + " listed; the rest was not checked"));
        }
        break;
      }
      if (!(posted.get(i) instanceof Map<?, ?> rule)) {
        violations.add(new RuleViolation(name, "must be an object with the fields of a " + kind + " rule"));
        continue;
      }
      Map<String, Object> properties = new LinkedHashMap<>();
      Map<ConfigurationPropertyName, String> postedNames = new HashMap<>();
      if (!rule.containsKey("resource")) {
        properties.put(name + ".resource", resource);
      }
      if (flatten(name, rule, properties, postedNames, violations)) {
        T bound = RuleBinding.bind(name, properties, type, property -> asPosted(property, postedNames), violations);
        if (bound != null) {
          rules.add(bound);
        }
      }
    }
    return violations.size() == before ? rules : List.of();
  }

  /**
   * Adds the properties of {@code value} under {@code name} ({@code flow[0].count},
   * {@code param-flow[0].exceptions[1].value}). A key that is not a field's name (letters, digits,
   * {@code -} and {@code _}) is a violation: it could not be any rule's field, and Spring Boot's
   * names would read a dot or a bracket in it as a path. Returns whether every key was a name.
   * The depth is bounded by the parser's ({@link InputLimits#MAX_DEPTH}).
   */
  private static boolean flatten(String name, @Nullable Object value, Map<String, Object> properties,
      Map<ConfigurationPropertyName, String> postedNames, List<RuleViolation> violations) {
    boolean names = true;
    if (value instanceof Map<?, ?> map && map.size() > InputLimits.MAX_FIELDS) {
      violations.add(new RuleViolation(name, "has " + map.size() + " fields; a rule has at most "
          + InputLimits.MAX_FIELDS));
      return false;
    } else if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        String key = String.valueOf(entry.getKey());
        if (!FIELD_NAME.matcher(key).matches()) {
          violations.add(new RuleViolation(name + "." + key, "no rule of this kind has this field"));
          names = false;
        } else {
          names &= flatten(name + "." + key, entry.getValue(), properties, postedNames, violations);
        }
      }
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        names &= flatten(name + "[" + i + "]", list.get(i), properties, postedNames, violations);
      }
    } else if (value != null) {
      properties.put(name, value);
      postedNames.put(ConfigurationPropertyName.adapt(name, '.'), name);
    }
    return names;
  }

  /** The parser's message, without the location Jackson appends (the body is one line, usually). */
  private static String reason(RuntimeException ex) {
    String message = ex instanceof JacksonException jackson ? jackson.getOriginalMessage() : ex.getMessage();
    return String.valueOf(message);
  }

  private static String asPosted(ConfigurationPropertyName name, Map<ConfigurationPropertyName, String> posted) {
    return posted.getOrDefault(name, name.toString());
  }
}
