package dev.weir.spring.actuate;

import dev.weir.RuleRegistry;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.fleet.FleetTraffic;
import dev.weir.spring.fleet.RedisUnreachable;
import dev.weir.spring.fleet.RulesStore;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.rules.RuleSources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The rules store seen from the {@code weir} endpoint and from the instance: the document of a
 * version, its reading (untrusted: checked as an endpoint write is), its application, and the
 * writes, history, rollback and fleet view of the endpoint.
 *
 * <p>A document is one JSON object: {@code {"updatedAt": "<ISO-8601>", "updatedBy": "<author>",
 * "change": "<what changed>", "rules": {"<resource>": {"flow": [...], "degrade": [...],
 * "paramFlow": [...], "authority": [...]}}}}, each resource's object as posted to the endpoint
 * (a kind given, even as {@code []}, replaces what every other source gives for that resource).
 * A reader refuses it whole when it is over {@link InputLimits#MAX_BYTES}, nested deeper than
 * {@link InputLimits#MAX_DEPTH}, holds more than {@link InputLimits#MAX_WRITE_ENTRIES} rules and
 * list entries in all, has a key at its top it does not know, or any resource's rules would be
 * refused by the endpoint; so a version costs at most what one endpoint write costs, and is put
 * in force whole or not at all.
 */
public final class FleetRules implements FleetSync.Applier {

  /** The source name of the changes written to the store, in the {@link RuleChangeLog}. */
  public static final String SOURCE = "store";

  /** How many times a write is tried again when another write took its version (without If-Match). */
  static final int ATTEMPTS = 5;

  /** The most characters of a version's {@code change}. */
  static final int MAX_CHANGE = 2000;

  private static final Set<String> TOP = Set.of("updatedAt", "updatedBy", "change", "rules");

  private final RulesStore store;
  private final FleetSync sync;
  private final RuleRegistry registry;
  private final @Nullable RuleSources sources;
  private final boolean shadowByDefault;
  private final RuleChangeLog changes;
  private final Supplier<@Nullable FleetTraffic> traffic;

  /**
   * Creates the rules of the fleet.
   *
   * @param store the store
   * @param sync this instance's follower, which gets this as its applier ({@link #applier})
   * @param registry the engine's rules, which judge every version
   * @param sources the engine's rule sources, whose last source the store is
   * @param shadowByDefault {@code weir.shadow}
   * @param changes where writes are recorded (log line and audit event)
   * @param traffic the fleet's summed traffic, when an application has it
   */
  public FleetRules(RulesStore store, FleetSync sync, RuleRegistry registry, @Nullable RuleSources sources,
      boolean shadowByDefault, RuleChangeLog changes, Supplier<@Nullable FleetTraffic> traffic) {
    this.store = store;
    this.sync = sync;
    this.registry = registry;
    this.sources = sources;
    this.shadowByDefault = shadowByDefault;
    this.changes = changes;
    this.traffic = traffic;
  }

  /**
   * The applier of a {@link FleetSync}, made before it: applies through {@code sources} with the
   * same reading as {@link #apply}.
   */
  public static FleetSync.Applier applier(RuleRegistry registry, @Nullable RuleSources sources,
      boolean shadowByDefault) {
    return (version, document) -> applyDocument(registry, sources, shadowByDefault, version, document);
  }

  @Override
  public void apply(long version, byte[] document) {
    applyDocument(registry, sources, shadowByDefault, version, document);
  }

  private static void applyDocument(RuleRegistry registry, @Nullable RuleSources sources, boolean shadowByDefault,
      long version, byte[] document) {
    if (sources == null) {
      throw new FleetSync.Refused("the engine has no rule sources to apply the store's rules through (an engine"
          + " of the application's own)");
    }
    Document read = Document.read(document);
    Checked checked = check(read.rules(), registry, shadowByDefault);
    if (!checked.violations().isEmpty()) {
      throw new FleetSync.Refused(describe(checked.violations()));
    }
    try {
      sources.applyStore(checked.kinds(), checked.rules(), SOURCE + " v" + version);
    } catch (InvalidRulesException ex) {
      throw new FleetSync.Refused(describe(ex.violations()));
    }
  }

  /** The rules of a document, checked: what to apply, or every problem (then nothing). */
  record Checked(Map<String, Set<RuleKind>> kinds, Map<String, RuleSet> rules, List<RuleViolation> violations) {
  }

  /**
   * Checks the rules of a document as the endpoint checks a write, resource by resource: binding,
   * the kinds at the top, the rules against the engine ({@link WeirPropertiesValidator}), a rule
   * naming another resource; problems are named {@code rules.<resource>.flow[0].count}.
   */
  static Checked check(Map<String, Object> rules, RuleRegistry registry, boolean shadowByDefault) {
    Map<String, Set<RuleKind>> kinds = new LinkedHashMap<>();
    Map<String, RuleSet> out = new LinkedHashMap<>();
    List<RuleViolation> violations = new ArrayList<>();
    for (Map.Entry<String, Object> entry : rules.entrySet()) {
      String resource = entry.getKey();
      String at = "rules." + resource + ".";
      if (resource.isBlank()) {
        violations.add(new RuleViolation("rules", "has a resource with a blank name"));
        continue;
      }
      if (!(entry.getValue() instanceof Map<?, ?> map)) {
        violations.add(new RuleViolation("rules." + resource, "must be an object with " + String.join(", ",
            PostedRules.KINDS)));
        continue;
      }
      PostedRules posted = PostedRules.of(resource, map);
      List<RuleViolation> found = new ArrayList<>(posted.unknownKinds());
      found.addAll(posted.bindingViolations());
      if (found.isEmpty() && !posted.givesNoKind()) {
        RuleLists given = posted.lists();
        RuleSet givenRules = given.toRuleSet(shadowByDefault);
        found.addAll(WeirPropertiesValidator.validateRules(given, posted.applyTo(givenRules,
            registry.rules(resource)), registry));
        found.addAll(foreign(resource, givenRules));
        if (found.isEmpty()) {
          kinds.put(resource, posted.kinds());
          out.put(resource, givenRules);
        }
      }
      found.forEach(violation -> violations.add(violation.under(at)));
      if (violations.size() >= InputLimits.MAX_PROBLEMS) {
        violations.add(new RuleViolation("rules", "has more problems than the " + InputLimits.MAX_PROBLEMS
            + " listed; the rest was not checked"));
        break;
      }
    }
    return new Checked(kinds, out, violations);
  }

  private static List<RuleViolation> foreign(String resource, RuleSet rules) {
    List<RuleViolation> out = new ArrayList<>();
    for (RuleKind kind : List.of(RuleKind.FLOW, RuleKind.DEGRADE, RuleKind.PARAM_FLOW, RuleKind.AUTHORITY)) {
      List<? extends ResourceRule> list = of(rules, kind);
      for (int i = 0; i < list.size(); i++) {
        if (!list.get(i).resource().equals(resource)) {
          out.add(new RuleViolation(kind.tag() + "[" + i + "].resource", "must be '" + resource + "' here, was '"
              + list.get(i).resource() + "'"));
        }
      }
    }
    return out;
  }

  private static List<? extends ResourceRule> of(RuleSet rules, RuleKind kind) {
    return switch (kind) {
      case FLOW -> rules.flow();
      case DEGRADE -> rules.degrade();
      case PARAM_FLOW -> rules.paramFlow();
      case AUTHORITY -> rules.authority();
      case SYSTEM -> List.of();
    };
  }

  static String describe(List<RuleViolation> violations) {
    String all = violations.stream().map(RuleViolation::toString).collect(Collectors.joining("; "));
    return all.length() > MAX_CHANGE ? all.substring(0, MAX_CHANGE) + "..." : all;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * The outcome of a fleet operation, as the endpoint answers it.
   *
   * @param status 200, 400, 404, 409 or 503
   * @param body the answer: JSON with {@code version} when done, else a problem
   */
  record Outcome(int status, Object body) {

    static Outcome problem(int status, String title, String detail, @Nullable Long version) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("title", title);
      body.put("status", status);
      body.put("detail", detail);
      if (version != null) {
        body.put("version", version);
      }
      return new Outcome(status, body);
    }
  }

  /**
   * Publishes a write of the kinds {@code kinds} of {@code resource}, already checked by the
   * endpoint, as a new version: the current document with that resource's kinds replaced. With
   * {@code ifMatch} the write is based on that version or refused (409); without, it is based on
   * whatever is current and tried again when another write takes the version first.
   */
  Outcome write(@Nullable String author, String resource, Set<RuleKind> kinds, RuleSet given, @Nullable Long ifMatch) {
    Map<String, Object> resourceRules = new LinkedHashMap<>();
    for (RuleKind kind : kinds) {
      List<Map<String, Object>> json = new ArrayList<>(RulesJson.of(of(given, kind)));
      json.forEach(rule -> rule.remove("resource"));
      resourceRules.put(RulesJson.key(kind), json);
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Base base;
      try {
        base = base(ifMatch);
      } catch (Stop stop) {
        return stop.outcome;
      }
      Map<String, Object> next = new TreeMap<>(base.rules());
      Map<String, Object> merged = new LinkedHashMap<>();
      if (next.get(resource) instanceof Map<?, ?> old) {
        old.forEach((key, value) -> merged.put(String.valueOf(key), value));
      }
      merged.putAll(resourceRules);
      next.put(resource, merged);
      String change = change(base.rules(), next);
      Outcome outcome = publish(author, base.version(), next, change, ifMatch != null);
      if (outcome != null) {
        if (outcome.status() == 200) {
          changes.changed(SOURCE, author, resource, kinds, "version " + versionOf(outcome) + ": " + change);
        }
        return outcome;
      }
    }
    return Outcome.problem(409, "Conflict", "other writes kept taking the version; nothing changed, try again", null);
  }

  /**
   * Publishes the rules of {@code version} as a new version (404 when the store no longer keeps it).
   */
  Outcome rollback(@Nullable String author, long version) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Base base;
      Map<String, Object> target;
      try {
        base = base(null);
        byte[] document = store.document(version);
        if (document == null) {
          return Outcome.problem(404, "Not Found", "the store keeps no version " + version, null);
        }
        Document read = Document.read(document);
        Checked checked = check(read.rules(), registry, shadowByDefault);
        if (!checked.violations().isEmpty()) {
          return Outcome.problem(400, "Invalid rules", "version " + version + " cannot be applied here: "
              + describe(checked.violations()), null);
        }
        target = new TreeMap<>(read.rules());
      } catch (Stop stop) {
        return stop.outcome;
      } catch (FleetSync.Refused refused) {
        return Outcome.problem(400, "Invalid rules", "version " + version + " cannot be read: "
            + refused.getMessage(), null);
      } catch (RedisUnreachable | RulesStore.Garbage e) {
        return unreachable(e);
      }
      String change = "rollback to version " + version + ": " + change(base.rules(), target);
      Outcome outcome = publish(author, base.version(), target, change, false);
      if (outcome != null) {
        if (outcome.status() == 200) {
          changes.changed(SOURCE, author, "*", List.of(), "version " + versionOf(outcome) + ": " + change);
        }
        return outcome;
      }
    }
    return Outcome.problem(409, "Conflict", "other writes kept taking the version; nothing changed, try again", null);
  }

  private static long versionOf(Outcome outcome) {
    return outcome.body() instanceof Map<?, ?> map && map.get("version") instanceof Long version ? version : -1;
  }

  /** The version a write is based on, and its rules. */
  private record Base(long version, Map<String, Object> rules) {
  }

  /** Ends a write with an outcome. */
  private static final class Stop extends RuntimeException {

    private static final long serialVersionUID = 1L;

    final transient Outcome outcome;

    Stop(Outcome outcome) {
      super(null, null, false, false);
      this.outcome = outcome;
    }
  }

  /**
   * Reads the current version and its rules. An empty store (flushed) is based on the rules this
   * instance applies, so that a write after a {@code FLUSHALL} starts the store again from the
   * fleet's rules rather than from nothing.
   */
  private Base base(@Nullable Long ifMatch) {
    long current;
    try {
      current = store.version();
    } catch (RedisUnreachable | RulesStore.Garbage e) {
      throw new Stop(unreachable(e));
    }
    if (ifMatch != null && ifMatch != current) {
      throw new Stop(Outcome.problem(409, "Conflict", "version " + ifMatch + " is no longer current; nothing changed",
          current));
    }
    if (current == 0) {
      byte[] applied = sync.appliedDocument();
      return new Base(0, applied == null ? Map.of() : readOrEmpty(applied));
    }
    byte[] document;
    try {
      document = store.document(current);
    } catch (RedisUnreachable e) {
      throw new Stop(unreachable(e));
    }
    if (document == null) {
      throw new Stop(Outcome.problem(503, "Service Unavailable", "the store's version " + current
          + " has no document; nothing changed", current));
    }
    try {
      return new Base(current, Document.read(document).rules());
    } catch (FleetSync.Refused refused) {
      throw new Stop(Outcome.problem(503, "Service Unavailable", "the store's version " + current
          + " cannot be read (" + refused.getMessage() + "); nothing changed", current));
    }
  }

  private static Map<String, Object> readOrEmpty(byte[] document) {
    try {
      return Document.read(document).rules();
    } catch (FleetSync.Refused refused) {
      return Map.of();
    }
  }

  /**
   * Stores {@code rules} as the version after {@code expected}; null when another write took that
   * version first and the caller may try again ({@code strict} false).
   */
  private @Nullable Outcome publish(@Nullable String author, long expected, Map<String, Object> rules, String change,
      boolean strict) {
    String who = author == null || author.isEmpty() ? RuleChangeLog.ANONYMOUS : author;
    String at = Instant.now().toString();
    String cut = change.length() > MAX_CHANGE ? change.substring(0, MAX_CHANGE) + "..." : change;
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("updatedAt", at);
    document.put("updatedBy", who);
    document.put("change", cut);
    document.put("rules", rules);
    byte[] bytes = PostedRules.JSON.writeValueAsBytes(document);
    if (bytes.length > InputLimits.MAX_BYTES) {
      return Outcome.problem(400, "Invalid rules", "the store's document would be " + bytes.length
          + " bytes, over " + InputLimits.MAX_BYTES_TEXT + "; nothing changed", null);
    }
    long entries = Document.entries(rules);
    if (entries > InputLimits.MAX_WRITE_ENTRIES) {
      return Outcome.problem(400, "Invalid rules", "the store's document would hold " + entries
          + " resources, rules and entries of their lists, over " + InputLimits.MAX_WRITE_ENTRIES + "; nothing changed",
          null);
    }
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("updatedAt", at);
    summary.put("updatedBy", who);
    summary.put("change", cut);
    RulesStore.Written written;
    try {
      written = store.write(expected, sync.highestKnown(), bytes,
          PostedRules.JSON.writeValueAsBytes(summary));
    } catch (RedisUnreachable | RulesStore.Garbage e) {
      return unreachable(e);
    }
    if (!written.written()) {
      if (strict) {
        return Outcome.problem(409, "Conflict", "version " + expected + " is no longer current; nothing changed",
            written.version());
      }
      return null;
    }
    sync.lookNow();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("version", written.version());
    body.put("updatedAt", at);
    body.put("updatedBy", who);
    body.put("change", cut);
    return new Outcome(200, body);
  }

  private static Outcome unreachable(RuntimeException e) {
    String detail = e instanceof RulesStore.Garbage ? "the store holds no valid version (" + e.getMessage()
        + "); nothing changed" : "the rules store is unreachable (" + e.getMessage() + "); nothing changed"
        + (e.getMessage() != null && e.getMessage().contains("did not answer")
            ? " unless Redis runs the write when it answers again: read the version before trying again" : "");
    return Outcome.problem(503, "Service Unavailable", detail, null);
  }

  private static Outcome readFailed(RuntimeException e) {
    return Outcome.problem(503, "Service Unavailable", e instanceof RulesStore.Garbage
        ? "the store holds no valid version (" + e.getMessage() + ")"
        : "the rules store is unreachable (" + e.getMessage() + ")", null);
  }

  /** What changed from {@code before} to {@code after}, resource by resource: {@code api: flow [...] -> [...]}. */
  static String change(Map<String, Object> before, Map<String, Object> after) {
    List<String> out = new ArrayList<>();
    Set<String> resources = new java.util.TreeSet<>(before.keySet());
    resources.addAll(after.keySet());
    for (String resource : resources) {
      Object was = before.get(resource);
      Object now = after.get(resource);
      if (Objects.equals(was, now)) {
        continue;
      }
      Map<?, ?> wasMap = was instanceof Map<?, ?> m ? m : Map.of();
      Map<?, ?> nowMap = now instanceof Map<?, ?> m ? m : Map.of();
      Set<Object> kinds = new java.util.LinkedHashSet<>(wasMap.keySet());
      kinds.addAll(nowMap.keySet());
      List<String> parts = new ArrayList<>();
      for (Object kind : kinds) {
        if (!Objects.equals(wasMap.get(kind), nowMap.get(kind))) {
          parts.add(kind + " " + (wasMap.containsKey(kind) ? wasMap.get(kind) : "-") + " -> "
              + (nowMap.containsKey(kind) ? nowMap.get(kind) : "-"));
        }
      }
      out.add(resource + ": " + String.join(", ", parts));
    }
    return out.isEmpty() ? "no change" : String.join("; ", out);
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** The fleet view: {@code version}, {@code updatedAt}, {@code updatedBy}, {@code instances}, {@code resources}. */
  Outcome view() {
    long version;
    List<RulesStore.Instance> instances;
    Map<String, Object> summary = Map.of();
    try {
      version = store.version();
      if (version > 0) {
        for (RulesStore.Kept kept : store.history()) {
          if (kept.version() == version) {
            summary = Document.summary(kept.summary());
            break;
          }
        }
      }
      instances = store.instances();
    } catch (RedisUnreachable | RulesStore.Garbage e) {
      return readFailed(e);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("version", version == 0 ? null : version);
    body.put("updatedAt", summary.get("updatedAt"));
    body.put("updatedBy", summary.get("updatedBy"));
    if (version == 0) {
      body.put("state", "store empty");
    }
    List<Map<String, Object>> listed = new ArrayList<>();
    for (RulesStore.Instance instance : instances) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("id", instance.id());
      json.put("host", instance.host());
      Long applies = number(instance.version());
      json.put("version", applies == null || applies < 0 ? null : applies);
      Long seen = number(instance.lastSeen());
      json.put("lastSeen", seen == null ? null : Instant.ofEpochMilli(seen).toString());
      json.put("error", instance.error().isEmpty() ? null : instance.error());
      listed.add(json);
    }
    body.put("instances", listed);
    FleetTraffic summed = traffic.get();
    Map<String, Map<String, Object>> resources = summed == null ? Map.of() : summed.summed();
    body.put("resources", resources == null ? Map.of() : resources);
    return new Outcome(200, body);
  }

  /**
   * The history, newest first: {@code version}, {@code updatedAt}, {@code updatedBy}, {@code change};
   * with the current {@code version} beside it (null when the store is empty), as every fleet answer.
   */
  Outcome history() {
    List<RulesStore.Kept> kept;
    long current;
    try {
      current = store.version();
      kept = store.history();
    } catch (RedisUnreachable | RulesStore.Garbage e) {
      return readFailed(e);
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (RulesStore.Kept version : kept) {
      Map<String, Object> summary = Document.summary(version.summary());
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("version", version.version());
      json.put("updatedAt", summary.get("updatedAt"));
      json.put("updatedBy", summary.get("updatedBy"));
      json.put("change", summary.get("change"));
      out.add(json);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("version", current == 0 ? null : current);
    body.put("history", out);
    return new Outcome(200, body);
  }

  private static @Nullable Long number(String text) {
    try {
      return text.isEmpty() ? null : Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The document

  /** A document as read: its rules by resource, each as posted (untrusted until {@link #check}ed). */
  record Document(Map<String, Object> rules) {

    /**
     * Reads a document within {@link InputLimits}.
     *
     * @throws FleetSync.Refused naming what is wrong with it
     */
    static Document read(byte[] document) {
      if (document.length > InputLimits.MAX_BYTES) {
        throw new FleetSync.Refused("the document is over " + InputLimits.MAX_BYTES_TEXT);
      }
      Object parsed;
      try {
        parsed = PostedRules.JSON.readValue(document, Object.class);
      } catch (RuntimeException | StackOverflowError ex) {
        throw new FleetSync.Refused("the document is not JSON: " + firstLine(String.valueOf(ex.getMessage())));
      }
      if (!(parsed instanceof Map<?, ?> map)) {
        throw new FleetSync.Refused("the document must be a JSON object with rules");
      }
      for (Object key : map.keySet()) {
        if (!TOP.contains(String.valueOf(key))) {
          throw new FleetSync.Refused("the document has the field '" + cut(String.valueOf(key))
              + "', which is not one of " + TOP.stream().sorted().toList());
        }
      }
      Object rules = map.get("rules");
      if (rules == null) {
        return new Document(Map.of());
      }
      if (!(rules instanceof Map<?, ?> byResource)) {
        throw new FleetSync.Refused("rules must be an object of rules by resource");
      }
      long entries = entries(byResource);
      if (entries > InputLimits.MAX_WRITE_ENTRIES) {
        throw new FleetSync.Refused("rules hold " + entries + " resources, rules and entries of their lists; a version"
            + " holds at most " + InputLimits.MAX_WRITE_ENTRIES);
      }
      Map<String, Object> out = new LinkedHashMap<>();
      byResource.forEach((resource, value) -> out.put(String.valueOf(resource), value));
      return new Document(out);
    }

    /**
     * Counts the resources of {@code rules}, and the entries of every list in it at any depth
     * (bounded by the parser's): a resource costs its place in the rule sources even with no rule.
     */
    static long entries(Map<?, ?> rules) {
      return rules.size() + listEntries(rules);
    }

    private static long listEntries(@Nullable Object value) {
      long count = 0;
      if (value instanceof List<?> list) {
        count += list.size();
        for (Object entry : list) {
          count += listEntries(entry);
        }
      } else if (value instanceof Map<?, ?> map) {
        for (Object field : map.values()) {
          count += listEntries(field);
        }
      }
      return count;
    }

    /** Reads a summary leniently: its text fields, cut; empty when it is no JSON object. */
    static Map<String, Object> summary(byte[] summary) {
      if (summary.length == 0 || summary.length > RulesStore.MAX_SUMMARY) {
        return Map.of("change", "(no readable summary)");
      }
      try {
        if (PostedRules.JSON.readValue(summary, Object.class) instanceof Map<?, ?> map) {
          Map<String, Object> out = new LinkedHashMap<>();
          for (String field : List.of("updatedAt", "updatedBy", "change")) {
            if (map.get(field) instanceof String text) {
              out.put(field, cut(text));
            }
          }
          return out;
        }
      } catch (RuntimeException | StackOverflowError ex) {
        // unreadable: shown as such
      }
      return Map.of("change", "(no readable summary)");
    }

    private static String cut(String text) {
      return text.length() > MAX_CHANGE ? text.substring(0, MAX_CHANGE) + "..." : text;
    }

    private static String firstLine(String message) {
      int end = message.indexOf('\n');
      return cut(end < 0 ? message : message.substring(0, end));
    }
  }

  /** For tests: reads and checks a document as an instance does, without applying it. */
  static List<RuleViolation> problems(byte[] document, RuleRegistry registry) {
    try {
      return check(Document.read(document).rules(), registry, false).violations();
    } catch (FleetSync.Refused refused) {
      return List.of(new RuleViolation("document", String.valueOf(refused.getMessage())));
    }
  }
}
