package dev.weir.spring.rules;

import dev.weir.RuleRegistry;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.properties.AuthorityRuleProperties;
import dev.weir.spring.properties.DegradeRuleProperties;
import dev.weir.spring.properties.FlowRuleProperties;
import dev.weir.spring.properties.ParamFlowRuleProperties;
import dev.weir.spring.properties.RuleBinding;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.SystemRuleProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.rules.RuleLayer.Given;
import dev.weir.spring.rules.RuleSource.Read;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.origin.OriginTrackedValue;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Reads the content of the rule file: YAML or JSON with the lists of {@code weir.*}
 * ({@code flow}, {@code degrade}, {@code param-flow}, {@code authority}), {@code system} and
 * {@code cleared}, into a {@link RuleLayer}, or into every problem, each named
 * {@code file:/path/rules.yml:LINE field}.
 *
 * <p>In three steps, each bounded. (1) {@link BoundedYaml} parses the bytes within
 * {@code InputLimits} (size, depth, aliases and what they expand to). (2) Spring Boot's YAML
 * loader, the one {@code application.yml} is read with, flattens the document into properties
 * with the line of each value ({@code flow[3].count}); it allows any number of aliases, which is
 * why step 1 comes first. (3) The properties are split by rule, in one pass, and each rule is
 * bound alone by Spring Boot's binder ({@link RuleBinding}, linear in the number of rules); then the
 * rules are judged by {@link WeirPropertiesValidator} as at start. A key at the top that is none of
 * the above, or any key the binder does not use, is a field no rule has.
 */
final class RuleFileReader {

  /** {@code kind[index]} at the start of a property name, and what follows. */
  private static final Pattern INDEXED = Pattern.compile("\\[(\\d{1,9})](.*)", Pattern.DOTALL);

  /** A cleared resource's list element: {@code [index]} at the end of its name. */
  private static final Pattern LAST_INDEX = Pattern.compile("(.*)\\[(\\d{1,9})]", Pattern.DOTALL);

  private static final String SYSTEM = "system";
  private static final String CLEARED = "cleared";

  private final String name;
  private final boolean json;
  private final boolean shadowByDefault;

  RuleFileReader(String name, boolean json, boolean shadowByDefault) {
    this.name = name;
    this.json = json;
    this.shadowByDefault = shadowByDefault;
  }

  Read read(byte[] content, RuleRegistry engine) {
    List<PropertySource<?>> documents;
    try {
      if (BoundedYaml.compose(content).size() > 1) {
        return invalid("must hold one YAML document");
      }
      documents = new YamlPropertySourceLoader().load(name, new ByteArrayResource(content, name));
    } catch (IOException | RuntimeException | StackOverflowError ex) {
      return invalid("is not valid " + (json ? "JSON" : "YAML") + ": " + BoundedYaml.problem(ex));
    }
    if (documents.isEmpty()) {
      return Read.of(RuleLayer.EMPTY);
    }
    PropertySource<?> document = documents.get(0);
    if (!(document instanceof EnumerablePropertySource<?> enumerable)
        || !(document.getSource() instanceof Map<?, ?> values)) {
      return invalid("could not be read as properties");
    }
    Properties properties = new Properties(document);
    List<RuleViolation> violations = new ArrayList<>();
    for (String key : enumerable.getPropertyNames()) {
      Object value = values.get(key);
      if (key != null && value != null) { // an empty document ({}) is one property without a name
        properties.add(key, value, violations);
      }
      if (violations.size() >= InputLimits.MAX_PROBLEMS) {
        return tooManyProblems(violations, properties);
      }
    }
    List<FlowRuleProperties> flow = properties.bind(Kind.FLOW, FlowRuleProperties.class, violations);
    List<DegradeRuleProperties> degrade = properties.bind(Kind.DEGRADE, DegradeRuleProperties.class, violations);
    List<ParamFlowRuleProperties> paramFlow = properties.bind(Kind.PARAM_FLOW, ParamFlowRuleProperties.class,
        violations);
    List<AuthorityRuleProperties> authority = properties.bind(Kind.AUTHORITY, AuthorityRuleProperties.class,
        violations);
    SystemRuleProperties system = properties.bindSystem(violations);
    Map<String, List<String>> cleared = properties.cleared(violations);
    if (violations.size() >= InputLimits.MAX_PROBLEMS) {
      return tooManyProblems(violations, properties);
    }
    if (!violations.isEmpty()) {
      return Read.invalid(violations.stream().map(properties::named).toList());
    }
    RuleLists lists = new RuleLists(flow, degrade, paramFlow, authority);
    RuleSet rules = lists.toRuleSet(shadowByDefault);
    violations.addAll(WeirPropertiesValidator.validateRules(lists, rules, engine));
    system.toRule().validate().forEach(v -> violations.add(v.under(SYSTEM + ".")));
    Set<Given> clearedKinds = cleared(cleared, rules, violations);
    if (!violations.isEmpty()) {
      return Read.invalid(violations.stream().map(properties::named).toList());
    }
    return Read.of(new RuleLayer(rules, clearedKinds, system.toRule(shadowByDefault)));
  }

  /**
   * The first {@link InputLimits#MAX_PROBLEMS} problems and a last one saying so: reading stops
   * there, so that a file of many bad rules costs no more than one of few (16,000 rules with an
   * unknown field each took 5 s and listed 48,000 problems).
   */
  private Read tooManyProblems(List<RuleViolation> violations, Properties properties) {
    List<RuleViolation> first = new ArrayList<>(violations.subList(0, InputLimits.MAX_PROBLEMS).stream()
        .map(properties::named).toList());
    first.add(new RuleViolation(name, "has more problems than the " + InputLimits.MAX_PROBLEMS
        + " listed; reading stopped there"));
    return Read.invalid(first);
  }

  private Read invalid(String message) {
    return Read.invalid(List.of(new RuleViolation(name, message)));
  }

  private static Set<Given> cleared(Map<String, List<String>> cleared, RuleSet rules, List<RuleViolation> out) {
    Set<Given> given = new HashSet<>();
    RuleLayer withRules = new RuleLayer(rules, Set.of(), null);
    cleared.forEach((resource, kinds) -> {
      for (int i = 0; i < kinds.size(); i++) {
        String field = CLEARED + "." + resource + "[" + i + "]";
        RuleKind kind = kind(kinds.get(i));
        if (kind == null) {
          out.add(new RuleViolation(field, "must be flow, degrade, param-flow or authority, was '" + kinds.get(i) + "'"));
        } else if (withRules.gives(new Given(resource, kind))) {
          out.add(new RuleViolation(field, "clears " + kind.tag() + " of '" + resource
              + "', but this file has such rules for it; remove one of the two"));
        } else {
          given.add(new Given(resource, kind));
        }
      }
    });
    return given;
  }

  /** Returns the kind of rules written so ({@code param-flow}, {@code paramFlow}, ...), or null. */
  static @Nullable RuleKind kind(String written) {
    String plain = uniform(written);
    for (RuleKind kind : RuleLayer.RESOURCE_KINDS) {
      if (kind.tag().replace("-", "").equals(plain)) {
        return kind;
      }
    }
    return null;
  }

  /** A name as Spring Boot compares names: lower case, without {@code -} and {@code _}. */
  private static String uniform(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  /** The lists of a rule file, by the name the binder and the validator give them. */
  private enum Kind {
    FLOW("flow"), DEGRADE("degrade"), PARAM_FLOW("param-flow"), AUTHORITY("authority");

    final String canonical;

    Kind(String canonical) {
      this.canonical = canonical;
    }

    static @Nullable Kind of(String written) {
      String plain = uniform(written);
      for (Kind kind : values()) {
        if (kind.canonical.replace("-", "").equals(plain)) {
          return kind;
        }
      }
      return null;
    }
  }

  /**
   * The properties of the document, split by where they belong: each rule of each list (by its
   * index), {@code system}, {@code cleared}. One pass over the properties; each group is then
   * bound or read alone, and problems are given their line from their group, not by a scan of the
   * whole document.
   */
  private final class Properties {

    private final ConfigurationPropertySource whole;
    private final Map<Kind, TreeMap<Integer, Map<String, Object>>> rules = new HashMap<>();
    private final Map<String, Object> system = new LinkedHashMap<>();
    private final Map<String, Object> cleared = new LinkedHashMap<>();
    /** The source of each group by its name ({@code flow[3]}, {@code system}, {@code cleared}), for lines. */
    private final Map<String, ConfigurationPropertySource> groups = new HashMap<>();

    Properties(PropertySource<?> document) {
      this.whole = Objects.requireNonNull(ConfigurationPropertySource.from(document));
    }

    /** Puts one property where it belongs; one that belongs nowhere is a field no rule has. */
    void add(String key, Object value, List<RuleViolation> violations) {
      int end = 0;
      while (end < key.length() && key.charAt(end) != '.' && key.charAt(end) != '[') {
        end++;
      }
      String head = key.substring(0, end);
      String rest = key.substring(end);
      Kind kind = Kind.of(head);
      if (kind != null) {
        Matcher indexed = INDEXED.matcher(rest);
        if (indexed.matches()) {
          rules.computeIfAbsent(kind, k -> new TreeMap<>())
              .computeIfAbsent(Integer.parseInt(indexed.group(1)), i -> new LinkedHashMap<>()).put(key, value);
        } else if (rest.isEmpty() && isEmpty(value)) {
          rules.computeIfAbsent(kind, k -> new TreeMap<>()); // kind: [] (or nothing): no rules
        } else if (rest.isEmpty()) {
          violations.add(new RuleViolation(key, "must be a list of " + kind.canonical + " rules, [] for none"));
        } else {
          violations.add(new RuleViolation(key, "no rule of this kind has this field"));
        }
      } else if (uniform(head).equals(SYSTEM)) {
        system.put(key, value);
      } else if (uniform(head).equals(CLEARED)) {
        cleared.put(key, value);
      } else {
        violations.add(new RuleViolation(key, "no rule of this kind has this field"));
      }
    }

    /** Binds each rule of a list alone; the list is empty when any rule of it has problems. */
    <T> List<T> bind(Kind kind, Class<T> type, List<RuleViolation> violations) {
      TreeMap<Integer, Map<String, Object>> byIndex = rules.getOrDefault(kind, new TreeMap<>());
      List<T> bound = new ArrayList<>(byIndex.size());
      int before = violations.size();
      int expected = 0;
      for (Map.Entry<Integer, Map<String, Object>> rule : byIndex.entrySet()) {
        if (violations.size() >= InputLimits.MAX_PROBLEMS) {
          break; // the reader lists no more (tooManyProblems)
        }
        String ruleName = kind.canonical + "[" + rule.getKey() + "]";
        groups.put(ruleName, source(ruleName, rule.getValue()));
        if (rule.getKey() != expected++) {
          violations.add(new RuleViolation(ruleName, "must follow " + kind.canonical + "[" + (expected - 2)
              + "]: the rules of a list are numbered from 0, without gaps"));
          continue;
        }
        if (rule.getValue().keySet().stream().anyMatch(key -> key.indexOf('.', key.indexOf(']')) < 0)) {
          violations.add(new RuleViolation(ruleName, "must be a mapping with the fields of a " + kind.canonical
              + " rule"));
          continue;
        }
        T value = RuleBinding.bind(ruleName, rule.getValue(), type, written(rule.getValue()), violations);
        if (value != null) {
          bound.add(value);
        }
      }
      return violations.size() == before ? bound : List.of();
    }

    SystemRuleProperties bindSystem(List<RuleViolation> violations) {
      groups.put(SYSTEM, source(SYSTEM, system));
      Map<String, Object> fields = new LinkedHashMap<>(system);
      fields.entrySet().removeIf(entry -> uniform(entry.getKey()).equals(SYSTEM) && isEmpty(entry.getValue()));
      SystemRuleProperties bound = RuleBinding.bind(SYSTEM, fields, SystemRuleProperties.class, written(fields),
          violations);
      return bound != null ? bound : new SystemRuleProperties();
    }

    /**
     * Reads {@code cleared}: a mapping of resource names to a list of kinds (or one kind, or
     * several separated by commas). Read here rather than bound, as a resource name may hold dots.
     */
    Map<String, List<String>> cleared(List<RuleViolation> violations) {
      groups.put(CLEARED, source(CLEARED, cleared));
      Map<String, TreeMap<Integer, String>> byResource = new LinkedHashMap<>();
      for (Map.Entry<String, Object> entry : cleared.entrySet()) {
        String key = entry.getKey();
        String value = String.valueOf(plain(entry.getValue()));
        int dot = key.indexOf('.');
        if (dot < 0) {
          if (!value.isEmpty()) {
            violations.add(new RuleViolation(key, "must be a mapping of resource names to kinds of rules"));
          }
          continue;
        }
        String resource = key.substring(dot + 1);
        Matcher indexed = LAST_INDEX.matcher(resource);
        if (indexed.matches()) {
          byResource.computeIfAbsent(indexed.group(1), r -> new TreeMap<>())
              .put(Integer.parseInt(indexed.group(2)), value);
        } else {
          TreeMap<Integer, String> kinds = byResource.computeIfAbsent(resource, r -> new TreeMap<>());
          for (String kind : value.split(",")) {
            if (!kind.isBlank()) {
              kinds.put(kinds.size(), kind.trim());
            }
          }
        }
      }
      Map<String, List<String>> out = new LinkedHashMap<>();
      byResource.forEach((resource, kinds) -> out.put(resource, List.copyOf(kinds.values())));
      return out;
    }

    /** Names a violation with the file and the line of its field (or of its nearest written parent). */
    RuleViolation named(RuleViolation violation) {
      Integer line = line(violation.field());
      return new RuleViolation(name + (line != null ? ":" + line : "") + " " + violation.field(), violation.message());
    }

    private @Nullable Integer line(String field) {
      ConfigurationPropertySource grouped = groups.get(groupOf(field));
      return RuleFile.line(grouped != null ? grouped : whole, field);
    }

    /** The group a field is in: {@code param-flow[3]} for {@code paramFlow[3].count}, {@code system}, ... */
    private String groupOf(String field) {
      int end = 0;
      while (end < field.length() && field.charAt(end) != '.' && field.charAt(end) != '[') {
        end++;
      }
      String head = field.substring(0, end);
      Kind kind = Kind.of(head);
      Matcher indexed = INDEXED.matcher(field.substring(end));
      if (kind != null && indexed.matches()) {
        return kind.canonical + "[" + Integer.parseInt(indexed.group(1)) + "]";
      }
      return uniform(head);
    }

    private Map<ConfigurationPropertyName, String> writtenNames(Map<String, Object> fields) {
      Map<ConfigurationPropertyName, String> names = new HashMap<>();
      for (String key : fields.keySet()) {
        try {
          names.put(ConfigurationPropertyName.adapt(key, '.'), key);
        } catch (RuntimeException invalid) {
          // Named by the binder's form then.
        }
      }
      return names;
    }

    private Function<ConfigurationPropertyName, String> written(Map<String, Object> fields) {
      Map<ConfigurationPropertyName, String> names = writtenNames(fields);
      return property -> names.getOrDefault(property, property.toString());
    }

    private ConfigurationPropertySource source(String groupName, Map<String, Object> fields) {
      return Objects.requireNonNull(ConfigurationPropertySource.from(
          new OriginTrackedMapPropertySource(name + " " + groupName, fields, true)));
    }
  }

  private static @Nullable Object plain(@Nullable Object value) {
    return value instanceof OriginTrackedValue tracked ? tracked.getValue() : value;
  }

  private static boolean isEmpty(Object value) {
    return "".equals(plain(value));
  }
}
