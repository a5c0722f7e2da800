package dev.weir.spring.rules;

import dev.weir.RuleRegistry;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.AuthorityRuleProperties;
import dev.weir.spring.properties.DegradeRuleProperties;
import dev.weir.spring.properties.FlowRuleProperties;
import dev.weir.spring.properties.ParamFlowItemProperties;
import dev.weir.spring.properties.ParamFlowRuleProperties;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.SystemRuleProperties;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A Sentinel rule file ({@code weir.rules.sentinel.*-file}): a JSON array of rule objects of one
 * kind, as Sentinel's file data source reads them and its dashboard writes them. Each rule is
 * converted to Weir's property classes, field by field, and judged by
 * {@link WeirPropertiesValidator} like {@code application.yml}; every problem is named with
 * Sentinel's field, {@code sentinel:flow-file /path/flow.json:7 [0].controlBehavior}. What Weir
 * cannot do as Sentinel would is refused, never approximated: a field Sentinel has and Weir has not
 * an equivalent of, a value Weir would read otherwise, and a field that neither has (a typo).
 * Bookkeeping fields of the dashboard and old versions ({@code id}, {@code app}, {@code ip},
 * {@code port}, {@code gmtCreate}, {@code gmtModified}, {@code passCount}) are ignored.
 *
 * <p>The file is parsed by SnakeYAML (JSON is YAML), through {@link BoundedYaml}: within the size,
 * depth and alias bounds of {@code InputLimits}, and keeping the line of every field for the
 * messages. Each rule is converted by a walk over its own fields, so reading is linear in the file.
 */
final class SentinelFile implements RuleSource {

  /** The kinds of Sentinel files, by property. */
  enum Kind {
    FLOW("flow-file", "flow"), DEGRADE("degrade-file", "degrade"), PARAM_FLOW("param-flow-file", "param-flow"),
    AUTHORITY("authority-file", "authority"), SYSTEM("system-file", "system");

    final String property;
    final String weirKind;

    Kind(String property, String weirKind) {
      this.property = property;
      this.weirKind = weirKind;
    }
  }

  private static final Set<String> IGNORED = Set.of("id", "app", "ip", "port", "gmtCreate", "gmtModified", "passCount");
  private static final Set<String> FLOW_FIELDS = Set.of("resource", "limitApp", "regex", "grade", "count", "strategy",
      "refResource", "controlBehavior", "warmUpPeriodSec", "maxQueueingTimeMs", "clusterMode", "clusterConfig");
  private static final Set<String> CLUSTER_FIELDS = Set.of("flowId", "thresholdType", "fallbackToLocalWhenFail",
      "strategy", "sampleCount", "windowIntervalMs", "resourceTimeout", "resourceTimeoutStrategy",
      "acquireRefuseStrategy", "clientOfflineTime");
  private static final Set<String> DEGRADE_FIELDS = Set.of("resource", "limitApp", "regex", "grade", "count",
      "timeWindow", "minRequestAmount", "slowRatioThreshold", "statIntervalMs");
  private static final Set<String> PARAM_FIELDS = Set.of("resource", "limitApp", "regex", "grade", "paramIdx", "count",
      "controlBehavior", "maxQueueingTimeMs", "burstCount", "durationInSec", "paramFlowItemList", "clusterMode",
      "clusterConfig");
  private static final Set<String> ITEM_FIELDS = Set.of("object", "count", "classType");
  private static final Set<String> AUTHORITY_FIELDS = Set.of("resource", "limitApp", "regex", "strategy");
  private static final Set<String> SYSTEM_FIELDS = Set.of("resource", "limitApp", "regex", "highestSystemLoad",
      "highestCpuUsage", "qps", "avgRt", "maxThread");

  /** Weir's field names (kebab-case, last segment) to Sentinel's, per kind. */
  private static final Map<Kind, Map<String, String>> FIELD_NAMES = Map.of(
      Kind.FLOW, Map.of("count", "count", "grade", "grade", "control-behavior", "controlBehavior", "warm-up-period",
          "warmUpPeriodSec", "max-queueing-time", "maxQueueingTimeMs", "strategy", "strategy", "ref-resource",
          "refResource", "limit-app", "limitApp", "cluster-mode", "clusterMode", "resource", "resource"),
      Kind.DEGRADE, Map.of("strategy", "grade", "slow-call-threshold", "count", "min-request-amount", "minRequestAmount",
          "stat-interval", "statIntervalMs", "open-duration", "timeWindow", "resource", "resource"),
      Kind.PARAM_FLOW, Map.of("param-index", "paramIdx", "grade", "grade", "count", "count", "duration", "durationInSec",
          "burst", "burstCount", "control-behavior", "controlBehavior", "max-queueing-time", "maxQueueingTimeMs",
          "exceptions", "paramFlowItemList", "value", "object", "resource", "resource"),
      Kind.AUTHORITY, Map.of("strategy", "strategy", "limit-app", "limitApp", "resource", "resource"),
      Kind.SYSTEM, Map.of("max-qps", "qps", "max-threads", "maxThread", "max-avg-rt", "avgRt", "max-load",
          "highestSystemLoad", "max-cpu-usage", "highestCpuUsage"));

  private static final Pattern INDEX = Pattern.compile("^\\[(\\d+)]");

  private final Kind kind;
  private final Path path;
  private final String name;
  /** {@code weir.shadow}: Sentinel's rules have no shadow field, so they take this. */
  private final boolean shadowByDefault;

  SentinelFile(Kind kind, Path path) {
    this(kind, path, false);
  }

  SentinelFile(Kind kind, Path path, boolean shadowByDefault) {
    this.shadowByDefault = shadowByDefault;
    this.kind = kind;
    this.path = path.toAbsolutePath();
    this.name = "sentinel:" + kind.property;
  }

  /** Returns a source for each Sentinel file configured. */
  static List<RuleSource> configured(WeirProperties.Sentinel sentinel, boolean shadowByDefault) {
    List<RuleSource> out = new ArrayList<>();
    add(out, Kind.FLOW, sentinel.getFlowFile(), shadowByDefault);
    add(out, Kind.DEGRADE, sentinel.getDegradeFile(), shadowByDefault);
    add(out, Kind.PARAM_FLOW, sentinel.getParamFlowFile(), shadowByDefault);
    add(out, Kind.AUTHORITY, sentinel.getAuthorityFile(), shadowByDefault);
    add(out, Kind.SYSTEM, sentinel.getSystemFile(), shadowByDefault);
    return out;
  }

  private static void add(List<RuleSource> out, Kind kind, @Nullable Path path, boolean shadowByDefault) {
    if (path != null) {
      out.add(new SentinelFile(kind, path, shadowByDefault));
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int rank() {
    return SENTINEL_RANK;
  }

  @Override
  public Path path() {
    return path;
  }

  @Override
  public Read read(byte[] content, RuleRegistry engine) {
    List<Node> documents;
    try {
      documents = BoundedYaml.compose(content);
    } catch (RuntimeException | StackOverflowError ex) {
      return Read.invalid(List.of(new RuleViolation(name + " " + path, "is not valid JSON: " + BoundedYaml.problem(ex))));
    }
    if (documents.isEmpty()) {
      return Read.of(RuleLayer.EMPTY);
    }
    if (documents.size() > 1) {
      return Read.invalid(List.of(new RuleViolation(name + " " + path, "must hold one JSON array")));
    }
    Node root = documents.get(0);
    if (!(root instanceof SequenceNode array)) {
      return Read.invalid(List.of(new RuleViolation(at(line(root), ""), "must be a JSON array of Sentinel "
          + kind.weirKind + " rules, [] for none")));
    }
    List<RuleViolation> violations = new ArrayList<>();
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < array.getValue().size(); i++) {
      Node node = array.getValue().get(i);
      if (!(node instanceof MappingNode)) {
        violations.add(new RuleViolation(at(line(node), "[" + i + "]"), "must be an object: a Sentinel " + kind.weirKind
            + " rule"));
        continue;
      }
      Entry entry = new Entry("[" + i + "]", (MappingNode) node, violations);
      // The dashboard stores hot-parameter and authority rules wrapped: {"rule": {...}, "app": ...}.
      if ((kind == Kind.PARAM_FLOW || kind == Kind.AUTHORITY) && entry.fields.get("rule") instanceof MappingNode rule) {
        entry = new Entry("[" + i + "].rule", rule, violations);
      }
      entries.add(entry);
    }
    return switch (kind) {
      case FLOW -> finish(new RuleLists(entries.stream().map(this::flow).toList(), List.of(), List.of(),
          List.of()), entries, violations, engine);
      case DEGRADE -> finish(new RuleLists(List.of(), entries.stream().map(this::degrade).toList(), List.of(),
          List.of()), entries, violations, engine);
      case PARAM_FLOW -> finish(new RuleLists(List.of(), List.of(), entries.stream().map(this::paramFlow)
          .toList(), List.of()), entries, violations, engine);
      case AUTHORITY -> finish(new RuleLists(List.of(), List.of(), List.of(), entries.stream()
          .map(this::authority).toList()), entries, violations, engine);
      case SYSTEM -> system(entries, violations);
    };
  }

  private Read finish(RuleLists lists, List<Entry> entries, List<RuleViolation> violations, RuleRegistry engine) {
    for (RuleViolation violation : WeirPropertiesValidator.validateRules(lists, lists.toRuleSet(shadowByDefault),
        engine)) {
      violations.add(sentinelNamed(violation, entries));
    }
    if (!violations.isEmpty()) {
      return Read.invalid(violations);
    }
    return Read.of(new RuleLayer(lists.toRuleSet(shadowByDefault), Set.of(), null));
  }

  /**
   * Renames a violation of the converted rules ({@code flow[0].warm-up-period}) with Sentinel's
   * field ({@code [0].warmUpPeriodSec}) and the line of that field in the file. The converted
   * lists hold one rule per entry of the file, in order, so the index is the entry's.
   */
  private RuleViolation sentinelNamed(RuleViolation violation, List<Entry> entries) {
    String field = violation.field();
    if (field.startsWith(kind.weirKind)) {
      field = field.substring(kind.weirKind.length());
    }
    Matcher index = INDEX.matcher(field);
    Entry entry = index.find() ? entries.get(Integer.parseInt(index.group(1))) : null;
    StringBuilder renamed = new StringBuilder(entry != null ? entry.path : "");
    String rest = entry != null ? field.substring(index.end()) : field;
    Map<String, String> names = FIELD_NAMES.get(kind);
    for (String segment : rest.split("\\.")) {
      if (segment.isEmpty()) {
        continue;
      }
      int bracket = segment.indexOf('[');
      String plain = bracket < 0 ? segment : segment.substring(0, bracket);
      String sentinel = kind == Kind.DEGRADE && plain.equals("threshold") && entry != null
          ? (entry.slowRatio() ? "slowRatioThreshold" : "count") : names.getOrDefault(plain, plain);
      renamed.append('.').append(sentinel).append(bracket < 0 ? "" : segment.substring(bracket));
    }
    String sentinelField = renamed.toString();
    int line = entry == null ? 0 : entry.lineOf(rest.isEmpty() ? "" : sentinelField.substring(entry.path.length() + 1));
    return new RuleViolation(at(line, sentinelField), violation.message());
  }

  private String at(int line, String field) {
    return name + " " + path + (line > 0 ? ":" + line : "") + (field.isEmpty() ? "" : " " + field);
  }

  private static int line(Node node) {
    return node.getStartMark().getLine() + 1;
  }

  private FlowRuleProperties flow(Entry e) {
    e.known(FLOW_FIELDS);
    e.noRegex();
    FlowRuleProperties rule = new FlowRuleProperties();
    rule.setResource(e.string("resource"));
    rule.setLimitApp(e.stringOr("limitApp", "default"));
    rule.setGrade(e.choice("grade", 1, new FlowGrade[] {FlowGrade.THREADS, FlowGrade.QPS}, "0 (thread count) or 1 (QPS)"));
    rule.setCount(e.number("count"));
    rule.setStrategy(e.choice("strategy", 0, FlowStrategy.values(), "0 (direct), 1 (relate) or 2 (chain)"));
    rule.setRefResource(e.string("refResource"));
    rule.setControlBehavior(e.choice("controlBehavior", 0, new ControlBehavior[] {ControlBehavior.REJECT,
        ControlBehavior.WARM_UP, ControlBehavior.QUEUE, ControlBehavior.WARM_UP_QUEUE},
        "0 (reject), 1 (warm up), 2 (rate limiter) or 3 (warm up + rate limiter)"));
    rule.setWarmUpPeriod(Duration.ofSeconds(e.whole("warmUpPeriodSec", 10)));
    // Sentinel never queues a thread-count rule, whatever its maxQueueingTimeMs: nor does Weir.
    rule.setMaxQueueingTime(rule.getGrade() == FlowGrade.THREADS ? Duration.ZERO
        : Duration.ofMillis(e.whole("maxQueueingTimeMs", 500)));
    boolean cluster = e.bool("clusterMode", false);
    rule.setClusterMode(cluster);
    Node config = e.fields.get("clusterConfig");
    if (cluster && config instanceof MappingNode mapping) {
      Entry c = new Entry(e.path + ".clusterConfig", mapping, e.violations);
      c.known(CLUSTER_FIELDS);
      if (c.whole("thresholdType", 0) != 1) {
        c.refuse("thresholdType", "must be 1 (global): a Weir cluster-mode count is shared by all instances, "
            + "and Weir has no threshold per connected client (0, Sentinel's default, is that)");
      }
      if (!c.bool("fallbackToLocalWhenFail", true)) {
        c.refuse("fallbackToLocalWhenFail", "false has no per-rule equivalent in Weir; leave it true and set "
            + "weir.cluster.fallback (local, share, allow, deny) for every cluster-mode rule");
      }
      if (c.whole("strategy", 0) != 0) {
        c.refuse("strategy", "must be 0 (normal); Sentinel's other cluster strategies have no Weir equivalent");
      }
    } else if (cluster) {
      e.refuse("clusterConfig", "is required with clusterMode true, with thresholdType 1 (global): a Weir "
          + "cluster-mode count is shared by all instances");
    }
    return rule;
  }

  private DegradeRuleProperties degrade(Entry e) {
    e.known(DEGRADE_FIELDS);
    e.noRegex();
    e.defaultLimitApp("circuit breakers");
    DegradeRuleProperties rule = new DegradeRuleProperties();
    rule.setResource(e.string("resource"));
    DegradeStrategy strategy = e.choice("grade", 0, DegradeStrategy.values(),
        "0 (slow request ratio), 1 (exception ratio) or 2 (exception count)");
    rule.setStrategy(strategy);
    Double count = e.number("count");
    Double slowRatio = e.number("slowRatioThreshold");
    if (strategy == DegradeStrategy.SLOW_RATIO) {
      // Sentinel's count is the slowest allowed response time in ms; the ratio is slowRatioThreshold.
      if (count != null && count >= 0 && count < 1e12) {
        rule.setSlowCallThreshold(Duration.ofNanos(Math.round(count * 1_000_000)));
      } else if (count != null) {
        e.refuse("count", "must be the slowest allowed response time in ms for grade 0, was " + count);
      }
      rule.setThreshold(slowRatio == null ? 1.0 : slowRatio);
    } else {
      rule.setThreshold(count);
      if (slowRatio != null && slowRatio != 1.0) {
        e.refuse("slowRatioThreshold", "applies to grade 0 (slow request ratio) only, Sentinel ignores it for grade "
            + (strategy == DegradeStrategy.ERROR_RATIO ? 1 : 2) + "; remove it, or use grade 0");
      }
    }
    rule.setOpenDuration(Duration.ofSeconds(e.whole("timeWindow", 0)));
    rule.setMinRequestAmount((int) e.whole("minRequestAmount", 5));
    rule.setStatInterval(Duration.ofMillis(e.whole("statIntervalMs", 1000)));
    return rule;
  }

  private ParamFlowRuleProperties paramFlow(Entry e) {
    e.known(PARAM_FIELDS);
    e.noRegex();
    e.defaultLimitApp("hot-parameter rules");
    ParamFlowRuleProperties rule = new ParamFlowRuleProperties();
    rule.setResource(e.string("resource"));
    rule.setGrade(e.choice("grade", 1, new FlowGrade[] {FlowGrade.THREADS, FlowGrade.QPS}, "0 (thread count) or 1 (QPS)"));
    if (e.fields.containsKey("paramIdx")) {
      rule.setParamIndex((int) e.whole("paramIdx", 0));
    } else {
      e.refuse("paramIdx", "is required: the index of the argument limited per value (negative counts from the end)");
    }
    rule.setCount(e.number("count"));
    rule.setDuration(Duration.ofSeconds(e.whole("durationInSec", 1)));
    rule.setBurst((int) e.whole("burstCount", 0));
    rule.setControlBehavior(e.choice("controlBehavior", 0, new ControlBehavior[] {ControlBehavior.REJECT, null,
        ControlBehavior.QUEUE}, "0 (reject) or 2 (rate limiter)"));
    rule.setMaxQueueingTime(Duration.ofMillis(e.whole("maxQueueingTimeMs", 0)));
    if (e.bool("clusterMode", false)) {
      e.refuse("clusterMode", "true has no equivalent for Sentinel hot-parameter rules in Weir; remove it");
    }
    Node items = e.fields.get("paramFlowItemList");
    if (items instanceof SequenceNode list) {
      List<ParamFlowItemProperties> exceptions = new ArrayList<>();
      for (int j = 0; j < list.getValue().size(); j++) {
        String at = "paramFlowItemList[" + j + "]";
        if (!(list.getValue().get(j) instanceof MappingNode mapping)) {
          e.refuse(at, "must be an object with object, count and classType");
          continue;
        }
        Entry item = new Entry(e.path + "." + at, mapping, e.violations);
        item.known(ITEM_FIELDS);
        ParamFlowItemProperties exception = new ParamFlowItemProperties();
        exception.setValue(item.value(item.string("object"), item.stringOr("classType", "")));
        exception.setCount(item.number("count"));
        exceptions.add(exception);
      }
      rule.setExceptions(exceptions);
    } else if (items != null && !isNull(items)) {
      e.refuse("paramFlowItemList", "must be an array of {object, count, classType}");
    }
    return rule;
  }

  private AuthorityRuleProperties authority(Entry e) {
    e.known(AUTHORITY_FIELDS);
    e.noRegex();
    AuthorityRuleProperties rule = new AuthorityRuleProperties();
    rule.setResource(e.string("resource"));
    rule.setStrategy(e.choice("strategy", 0, new AuthorityStrategy[] {AuthorityStrategy.WHITE, AuthorityStrategy.BLACK},
        "0 (white list) or 1 (black list)"));
    String apps = e.string("limitApp");
    rule.setLimitApp(apps == null ? List.of() : Arrays.stream(apps.split(",")).map(String::trim)
        .filter(app -> !app.isEmpty()).toList());
    rule.setAllowNoOrigin(true); // Sentinel lets a call without an origin through a white list
    return rule;
  }

  /**
   * Sentinel applies every system rule of the file, each threshold the lowest of those set
   * ({@code -1}, or any negative value, means unset): so does this.
   */
  private Read system(List<Entry> entries, List<RuleViolation> violations) {
    SystemRuleProperties rule = new SystemRuleProperties();
    Map<String, Entry> source = new LinkedHashMap<>();
    for (Entry e : entries) {
      e.known(SYSTEM_FIELDS);
      lowest(e, "highestSystemLoad", rule.getMaxLoad(), rule::setMaxLoad, source);
      lowest(e, "highestCpuUsage", rule.getMaxCpuUsage(), rule::setMaxCpuUsage, source);
      lowest(e, "qps", rule.getMaxQps(), rule::setMaxQps, source);
      Double rt = lowest(e, "avgRt", rule.getMaxAvgRt() == null ? null : (double) rule.getMaxAvgRt().toMillis(),
          null, source);
      if (rt != null) {
        rule.setMaxAvgRt(Duration.ofMillis(rt.longValue()));
      }
      Double threads = lowest(e, "maxThread", rule.getMaxThreads() == null ? null : (double) rule.getMaxThreads(),
          null, source);
      if (threads != null) {
        rule.setMaxThreads(threads > Integer.MAX_VALUE ? Integer.MAX_VALUE : threads.intValue());
      }
    }
    Map<String, String> names = FIELD_NAMES.get(Kind.SYSTEM);
    for (RuleViolation violation : rule.toRule(shadowByDefault).validate()) {
      String field = names.getOrDefault(violation.field(), violation.field());
      Entry e = source.get(field);
      violations.add(new RuleViolation(at(e == null ? 0 : e.lineOf(field), (e == null ? "" : e.path + ".") + field),
          violation.message()));
    }
    if (!violations.isEmpty()) {
      return Read.invalid(violations);
    }
    return Read.of(new RuleLayer(dev.weir.rule.RuleSet.empty(), Set.of(), rule.toRule(shadowByDefault)));
  }

  private static @Nullable Double lowest(Entry e, String field, @Nullable Double current,
      java.util.function.@Nullable Consumer<Double> set, Map<String, Entry> source) {
    Double value = e.number(field);
    if (value == null || value < 0) {
      return null;
    }
    if (current != null && current <= value) {
      return null;
    }
    source.put(field, e);
    if (set != null) {
      set.accept(value);
    }
    return value;
  }

  private static boolean isNull(Node node) {
    return node instanceof ScalarNode scalar && "null".equals(scalar.getValue()) && scalar.getTag().getValue()
        .endsWith(":null");
  }

  /** One rule object of the file: its fields, where it is, and where its problems go. */
  private final class Entry {
    final String path;
    final Map<String, Node> fields = new LinkedHashMap<>();
    final Map<String, Integer> lines = new LinkedHashMap<>();
    final List<RuleViolation> violations;
    final int line;

    Entry(String path, MappingNode node, List<RuleViolation> violations) {
      this.path = path;
      this.violations = violations;
      this.line = SentinelFile.line(node);
      for (NodeTuple tuple : node.getValue()) {
        if (tuple.getKeyNode() instanceof ScalarNode key) {
          fields.put(key.getValue(), tuple.getValueNode());
          lines.put(key.getValue(), SentinelFile.line(key));
        }
      }
    }

    /** Whether this degrade rule is of grade 0 (Sentinel's default): Weir's threshold is then slowRatioThreshold. */
    boolean slowRatio() {
      Node grade = fields.get("grade");
      return !(grade instanceof ScalarNode scalar) || scalar.getValue().trim().matches("0|0\\.0|null");
    }

    int lineOf(String field) {
      String plain = field.contains(".") ? field.substring(0, field.indexOf('.')) : field;
      int bracket = plain.indexOf('[');
      return lines.getOrDefault(bracket < 0 ? plain : plain.substring(0, bracket), line);
    }

    void refuse(String field, String message) {
      violations.add(new RuleViolation(at(lineOf(field), path + "." + field), message));
    }

    void known(Set<String> known) {
      for (String field : fields.keySet()) {
        if (!known.contains(field) && !IGNORED.contains(field) && !"rule".equals(field)) {
          refuse(field, "is not a field of a Sentinel " + kind.weirKind + " rule that Weir reads; fields: "
              + known.stream().sorted().toList());
        }
      }
    }

    void noRegex() {
      if (bool("regex", false)) {
        refuse("regex", "true (a resource name as a regular expression) has no Weir equivalent: name each resource");
      }
    }

    void defaultLimitApp(String what) {
      String app = string("limitApp");
      if (app != null && !app.equals("default")) {
        refuse("limitApp", "must be default: Weir's " + what + " apply to every caller, was '" + app + "'");
      }
    }

    private @Nullable String scalar(String field) {
      Node node = fields.get(field);
      if (node == null || isNull(node)) {
        return null;
      }
      if (!(node instanceof ScalarNode scalar)) {
        refuse(field, "must be a single value");
        return null;
      }
      return scalar.getValue();
    }

    @Nullable String string(String field) {
      return scalar(field);
    }

    String stringOr(String field, String otherwise) {
      String value = scalar(field);
      return value == null ? otherwise : value;
    }

    @Nullable Double number(String field) {
      String value = scalar(field);
      if (value == null) {
        return null;
      }
      try {
        return Double.valueOf(value);
      } catch (NumberFormatException ex) {
        refuse(field, "must be a number, was '" + value + "'");
        return null;
      }
    }

    long whole(String field, long otherwise) {
      Double value = number(field);
      if (value == null) {
        return otherwise;
      }
      if (value != Math.rint(value) || Math.abs(value) > 1e15) {
        refuse(field, "must be a whole number, was " + value);
        return otherwise;
      }
      return value.longValue();
    }

    boolean bool(String field, boolean otherwise) {
      String value = scalar(field);
      if (value == null) {
        return otherwise;
      }
      if (!value.equals("true") && !value.equals("false")) {
        refuse(field, "must be true or false, was '" + value + "'");
        return otherwise;
      }
      return Boolean.parseBoolean(value);
    }

    /** Reads an int code as the constant at that index of {@code values}; a null there is refused too. */
    <E> @Nullable E choice(String field, int otherwise, E[] values, String allowed) {
      long code = whole(field, otherwise);
      if (code < 0 || code >= values.length || values[(int) code] == null) {
        refuse(field, "must be " + allowed + ", was " + code);
        return values[otherwise];
      }
      return values[(int) code];
    }

    /**
     * Returns a parameter value as Weir compares it, {@code String.valueOf} of the argument:
     * Sentinel parses {@code object} to {@code classType} and compares the parsed value, so
     * {@code "05"} of an {@code int} matches the argument 5; written as Weir reads it, that is {@code 5}.
     */
    @Nullable String value(@Nullable String object, String classType) {
      if (object == null) {
        return null;
      }
      try {
        return switch (classType) {
          case "", "String", "java.lang.String" -> object;
          case "int", "java.lang.Integer" -> String.valueOf(Integer.parseInt(object.trim()));
          case "long", "java.lang.Long" -> String.valueOf(Long.parseLong(object.trim()));
          case "short", "java.lang.Short" -> String.valueOf(Short.parseShort(object.trim()));
          case "byte", "java.lang.Byte" -> String.valueOf(Byte.parseByte(object.trim()));
          case "double", "java.lang.Double" -> String.valueOf(Double.parseDouble(object.trim()));
          case "float", "java.lang.Float" -> String.valueOf(Float.parseFloat(object.trim()));
          case "boolean", "java.lang.Boolean" -> String.valueOf(Boolean.parseBoolean(object.trim()));
          case "char", "java.lang.Character" -> object.length() == 1 ? object : invalidChar(object);
          default -> {
            refuse("classType", "must be a primitive type, its wrapper or java.lang.String, was '" + classType + "'");
            yield object;
          }
        };
      } catch (NumberFormatException ex) {
        refuse("object", "must be a " + classType + " as classType says, was '" + object + "'");
        return object;
      }
    }

    private String invalidChar(String object) {
      refuse("object", "must be one character for classType char, was '" + object + "'");
      return object;
    }
  }
}
