package dev.weir.spring.properties;

import dev.weir.RuleRegistry;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The one place where Weir's configuration is judged. It reports every problem at once, each as a
 * {@link RuleViolation} whose field is the property path and whose message says what is allowed:
 * the engine settings, the values a rule requires (a missing one would read as a default), the rules
 * as the engine judges them ({@link RuleRegistry#validate(RuleSet)}), the system rule and the
 * cluster settings.
 *
 * <p>For {@code weir.*} at start the paths are full ({@code weir.flow[0].count},
 * {@code weir.cluster.timeout}); for rules posted to the {@code weir} actuator endpoint they are
 * relative to the body ({@code flow[0].count}). A value the engine would also refuse is reported
 * once, as required.
 */
public final class WeirPropertiesValidator {

  /** The prefix of every path of the configuration. */
  public static final String PREFIX = "weir.";

  private WeirPropertiesValidator() {
  }

  /**
   * Returns every problem of the {@code weir.*} configuration, named by full property path; empty
   * when it is valid.
   *
   * @param properties the configuration
   * @param engine the rule registry of the engine the rules are for: it judges what it can enforce
   *     (cluster-mode rules need a cluster client)
   * @param clusterClient whether a cluster client is available for {@code weir.cluster.enabled}
   */
  public static List<RuleViolation> validate(WeirProperties properties, RuleRegistry engine, boolean clusterClient) {
    List<RuleViolation> out = new ArrayList<>(settings(properties));
    RuleLists rules = RuleLists.of(properties);
    for (RuleViolation violation : validateRules(rules, rules.toRuleSet(), engine)) {
      out.add(violation.under(PREFIX));
    }
    for (RuleViolation violation : properties.getSystem().toRule().validate()) {
      out.add(violation.under(PREFIX + "system."));
    }
    cluster(properties.getCluster(), clusterClient, out);
    rules(properties.getRules(), out);
    rulesStore(properties, out);
    ai(properties.getAi(), out);
    routes(properties.getWeb().getRoutes(), out);
    return out;
  }

  private static final java.util.Set<String> HTTP_METHODS =
      java.util.Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE");

  private static void routes(List<RouteProperties> routes, List<RuleViolation> out) {
    for (int i = 0; i < routes.size(); i++) {
      RouteProperties route = routes.get(i);
      String at = PREFIX + "web.routes[" + i + "].";
      if (route.getResource() == null || route.getResource().isBlank()) {
        out.add(new RuleViolation(at + "resource", "is required: the resource the matched requests are guarded as"));
      }
      if (route.getPath() == null || route.getPath().isBlank()) {
        out.add(new RuleViolation(at + "path", "is required: a Spring PathPattern such as /api/**"));
      } else if (!route.getPath().startsWith("/")) {
        out.add(new RuleViolation(at + "path", "must start with /, was '" + route.getPath() + "'"));
      }
      for (int j = 0; j < route.getMethods().size(); j++) {
        String method = route.getMethods().get(j);
        if (method == null || !HTTP_METHODS.contains(method.strip().toUpperCase(java.util.Locale.ROOT))) {
          out.add(new RuleViolation(at + "methods[" + j + "]", "must be one of " + new java.util.TreeSet<>(HTTP_METHODS)
              + ", was '" + method + "'"));
        }
      }
      if (route.getPermits() < 1) {
        out.add(new RuleViolation(at + "permits", "must be at least 1, was " + route.getPermits()));
      }
    }
  }

  /** The engine's message on a missing cluster client, told as the property that gives one. */
  private static RuleViolation inSpringTerms(RuleViolation violation) {
    return violation.message().equals(RuleRegistry.NO_CLUSTER_CLIENT)
        ? new RuleViolation(violation.field(), "needs a cluster client, and this engine has none (weir.cluster.enabled)")
        : violation;
  }

  /**
   * Returns every problem of rules given as properties, named relative to them
   * ({@code flow[0].count}): the required values missing, then what the engine finds wrong with
   * {@code inForce}, the rules that would be in force (the given ones, converted, with rules of kinds
   * not given as they are), except on fields already reported.
   */
  public static List<RuleViolation> validateRules(RuleLists given, RuleSet inForce, RuleRegistry engine) {
    List<RuleViolation> out = new ArrayList<>(required(given));
    Set<String> reported = out.stream().map(RuleViolation::field).collect(Collectors.toSet());
    List<RuleViolation> judged;
    try {
      judged = engine.validate(inForce);
    } catch (RuntimeException | StackOverflowError failure) {
      judged = judgedOneByOne(inForce, engine, failure);
    }
    judged.stream().filter(violation -> !reported.contains(violation.field()))
        .map(WeirPropertiesValidator::inSpringTerms).forEach(out::add);
    clusterResources(inForce, out);
    return out;
  }

  /** Why a cluster-mode rule's resource must not begin with a closing brace. */
  static final String EMPTY_HASH_TAG = "must not begin with '}' in a cluster-mode rule: Weir puts the resource in"
      + " braces as the Redis Cluster hash tag of its keys ('{}' then, an empty tag), and Redis Cluster hashes a"
      + " key with an empty tag whole, so the keys one script touches (a limit and its lease receipts, several"
      + " limits of the resource) would lie in different slots and every such call would fail with CROSSSLOT;"
      + " any other first character is safe";

  /**
   * The resources of cluster-mode rules that would break Redis Cluster's hash tags. Weir names a
   * resource's keys <code>&lt;prefix&gt;:{&lt;resource&gt;}:...</code> (a param-flow key's
   * <code>&lt;prefix&gt;:{&lt;resource&gt;|&lt;key&gt;}:...</code>); the prefix has no brace, so the tag
   * Redis Cluster hashes is what lies between that opening brace and the first closing brace after
   * it, and the keys one script touches all begin with the same <code>&lt;prefix&gt;:{&lt;resource&gt;</code>.
   * A closing brace inside the resource therefore only shortens the tag (to the part before it), alike
   * for all of them; only a resource that begins with one leaves the tag empty, and a key with an
   * empty tag is hashed whole, each to its own slot. A blank resource is refused as a rule's already.
   */
  private static void clusterResources(RuleSet rules, List<RuleViolation> out) {
    for (int i = 0; i < rules.flow().size(); i++) {
      if (rules.flow().get(i).clusterMode() && rules.flow().get(i).resource().startsWith("}")) {
        out.add(new RuleViolation("flow[" + i + "].resource", EMPTY_HASH_TAG));
      }
    }
    for (int i = 0; i < rules.paramFlow().size(); i++) {
      if (rules.paramFlow().get(i).clusterMode() && rules.paramFlow().get(i).resource().startsWith("}")) {
        out.add(new RuleViolation("param-flow[" + i + "].resource", EMPTY_HASH_TAG));
      }
    }
  }

  /**
   * Judges the rules one at a time, after the engine failed on them all instead of judging them:
   * something it runs while checking a rule threw (a key expression's compiler, which an
   * application may replace, or any bug). Rules come from files and the endpoint, so a failure is
   * their problem, not the caller's: each rule whose check fails is a violation naming it
   * ({@code param-flow[3]: could not be checked: StackOverflowError}), with the problems the
   * others have alone. One pass, each rule checked once more. A {@code StackOverflowError} is
   * caught as the stack it overflowed has unwound by then; other errors of the virtual machine
   * (out of memory) are the caller's.
   */
  private static List<RuleViolation> judgedOneByOne(RuleSet rules, RuleRegistry engine, Throwable failure) {
    List<RuleViolation> out = new ArrayList<>();
    judgeEach(out, "flow", rules.flow(), rule -> new RuleSet(List.of(rule), List.of(), List.of(), List.of()), engine);
    judgeEach(out, "degrade", rules.degrade(), rule -> new RuleSet(List.of(), List.of(rule), List.of(), List.of()),
        engine);
    judgeEach(out, "param-flow", rules.paramFlow(),
        rule -> new RuleSet(List.of(), List.of(), List.of(rule), List.of()), engine);
    judgeEach(out, "authority", rules.authority(),
        rule -> new RuleSet(List.of(), List.of(), List.of(), List.of(rule)), engine);
    if (out.isEmpty()) {
      out.add(new RuleViolation("rules", "could not be checked: " + describe(failure)));
    }
    return out;
  }

  private static <R> void judgeEach(List<RuleViolation> out, String kind, List<R> rules,
      Function<R, RuleSet> alone, RuleRegistry engine) {
    String first = kind + "[0]";
    for (int i = 0; i < rules.size(); i++) {
      String at = kind + "[" + i + "]";
      try {
        for (RuleViolation violation : engine.validate(alone.apply(rules.get(i)))) {
          String field = violation.field().startsWith(first) ? at + violation.field().substring(first.length())
              : violation.field();
          out.add(new RuleViolation(field, violation.message()));
        }
      } catch (RuntimeException | StackOverflowError failure) {
        out.add(new RuleViolation(at, "could not be checked: " + describe(failure)));
      }
    }
  }

  /** A failure as a message names it: its class, and its message when it has one. */
  public static String describe(Throwable failure) {
    String message = failure.getMessage();
    return failure.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }

  /**
   * Returns a violation for each {@code weir.flow[i].ref-resource} of a {@code related} rule that
   * names none of {@code known}: the resources of {@code @RateLimited} methods, rules and calls at
   * start.
   */
  public static List<RuleViolation> unknownReferences(WeirProperties properties, Set<String> known) {
    List<RuleViolation> out = new ArrayList<>();
    List<FlowRuleProperties> flow = properties.getFlow();
    for (int i = 0; i < flow.size(); i++) {
      String ref = flow.get(i).getRefResource();
      if (flow.get(i).getStrategy() == FlowStrategy.RELATED && ref != null && !known.contains(ref)) {
        out.add(new RuleViolation(PREFIX + "flow[" + i + "].ref-resource", "names resource '" + ref
            + "', which no @RateLimited method, rule or call at start uses" + Spelling.suggestion(ref, known)
            + "; known resources: " + known));
      }
    }
    return out;
  }

  /** Whether {@code prefix} may prefix cluster keys: non-blank and without braces. */
  public static boolean isValidKeyPrefix(@Nullable String prefix) {
    return prefix != null && !prefix.isBlank() && prefix.indexOf('{') < 0 && prefix.indexOf('}') < 0;
  }

  private static List<RuleViolation> settings(WeirProperties properties) {
    List<RuleViolation> out = new ArrayList<>();
    if (properties.getMaxResources() < 1) {
      out.add(new RuleViolation(PREFIX + "max-resources", "must be at least 1, was " + properties.getMaxResources()));
    }
    Duration resolution = properties.getClockResolution();
    if (resolution != null && (!resolution.isZero()
        && (resolution.compareTo(Duration.ofNanos(10_000)) < 0 || resolution.compareTo(Duration.ofMillis(10)) > 0))) {
      out.add(new RuleViolation(PREFIX + "clock-resolution", "must be 0 (read the clock on every call) or from 10us"
          + " to 10ms, was " + resolution));
    }
    int sampleCount = properties.getStatistics().getSampleCount();
    if (sampleCount < 1 || sampleCount > 1000 || 1_000_000_000 % sampleCount != 0) {
      out.add(new RuleViolation(PREFIX + "statistics.sample-count",
          "must be between 1 and 1000 and divide 1000000000 (1, 2, 4, 5, 10, 20, ...), was " + sampleCount));
    }
    return out;
  }

  /**
   * Returns the required values that are missing: {@code flow[i].count}, {@code degrade[i].strategy},
   * {@code degrade[i].threshold}, {@code degrade[i].slow-call-threshold} (for slow-ratio),
   * {@code param-flow[i].count} and the value and count of each {@code param-flow[i].exceptions[j]}.
   */
  private static List<RuleViolation> required(RuleLists rules) {
    List<RuleViolation> out = new ArrayList<>();
    for (int i = 0; i < rules.flow().size(); i++) {
      if (rules.flow().get(i).getCount() == null && rules.flow().get(i).getGrade() != FlowGrade.ADAPTIVE) {
        out.add(new RuleViolation("flow[" + i + "].count", "is required: a number >= 0 (calls per interval for"
            + " grade qps, calls inside at once for grade threads; 0 refuses every call)"));
      }
    }
    for (int i = 0; i < rules.degrade().size(); i++) {
      DegradeRuleProperties rule = rules.degrade().get(i);
      String at = "degrade[" + i + "].";
      if (rule.getStrategy() == null) {
        out.add(new RuleViolation(at + "strategy", "is required: slow-ratio, error-ratio or error-count"));
      }
      if (rule.getThreshold() == null) {
        out.add(new RuleViolation(at + "threshold",
            "is required: a ratio from 0 to 1 for slow-ratio and error-ratio, a number of errors for error-count"));
      }
      if (rule.getStrategy() == DegradeStrategy.SLOW_RATIO && rule.getSlowCallThreshold() == null) {
        out.add(new RuleViolation(at + "slow-call-threshold",
            "is required for strategy slow-ratio: calls slower than this are slow (e.g. 200ms)"));
      }
    }
    for (int i = 0; i < rules.paramFlow().size(); i++) {
      ParamFlowRuleProperties rule = rules.paramFlow().get(i);
      String at = "param-flow[" + i + "].";
      if (rule.getCount() == null) {
        out.add(new RuleViolation(at + "count", "is required: a number >= 0 per argument value"));
      }
      if (rule.getKey() != null && rule.getParamIndex() != null) {
        out.add(new RuleViolation(at + "param-index", "is not used with key: give param-index or key, not both"));
      }
      for (int j = 0; j < rule.getExceptions().size(); j++) {
        ParamFlowItemProperties item = rule.getExceptions().get(j);
        if (item.getValue() == null) {
          out.add(new RuleViolation(at + "exceptions[" + j + "].value", "is required: the argument value as text"));
        }
        if (item.getCount() == null) {
          out.add(new RuleViolation(at + "exceptions[" + j + "].count", "is required: a number >= 0"));
        }
      }
    }
    return out;
  }

  private static void cluster(WeirProperties.Cluster cluster, boolean clusterClient, List<RuleViolation> out) {
    String at = PREFIX + "cluster.";
    if (cluster.isEnabled() && !clusterClient) {
      out.add(new RuleViolation(at + "enabled", "cluster mode counts in Redis and needs "
          + "spring-boot-starter-data-redis (Lettuce) on the classpath, or a ClusterClient bean"));
    }
    if (!isValidKeyPrefix(cluster.getKeyPrefix())) {
      out.add(new RuleViolation(at + "key-prefix", "must be non-blank and without braces (Weir adds the "
          + "hash tag), was '" + cluster.getKeyPrefix() + "'"));
    }
    positive(at + "timeout", cluster.getTimeout(), ClusterOptions.MAX_TIMEOUT, "1m", out);
    positive(at + "open-duration", cluster.getOpenDuration(), ClusterOptions.MAX_OPEN_DURATION, "1d", out);
    if (cluster.getFallback() == null) {
      out.add(new RuleViolation(at + "fallback", "must be local, share, allow or deny"));
    }
    if (cluster.getFailureThreshold() < 1) {
      out.add(new RuleViolation(at + "failure-threshold", "must be at least 1, was " + cluster.getFailureThreshold()));
    }
    if (cluster.getMaxInFlight() < 1) {
      out.add(new RuleViolation(at + "max-in-flight", "must be at least 1, was " + cluster.getMaxInFlight()));
    }
  }

  private static void rulesStore(WeirProperties properties, List<RuleViolation> out) {
    String at = PREFIX + "rules-store.";
    WeirProperties.RulesStore store = properties.getRulesStore();
    if (store.isEnabled() && !properties.getCluster().isEnabled()) {
      out.add(new RuleViolation(at + "enabled", "needs weir.cluster.enabled: the store lives in weir.cluster's Redis"));
    }
    if (store.isEnabled() && !org.springframework.util.ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper",
        null)) { // the context class loader, as the application's auto-configurations see it
      out.add(new RuleViolation(at + "enabled", "needs Jackson (tools.jackson.core:jackson-databind, which Spring"
          + " Boot's web and JSON starters bring): the store's documents are JSON"));
    }
    if (store.isEnabled() && !org.springframework.util.ClassUtils.isPresent(
        "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
        null)) { // the context class loader, as the application's auto-configurations see it
      out.add(new RuleViolation(at + "enabled", "needs spring-boot-starter-data-redis (Lettuce) on the classpath:"
          + " the store is read and written through its connection"));
    }
    if (store.getHistory() < WeirProperties.RulesStore.MIN_HISTORY
        || store.getHistory() > WeirProperties.RulesStore.MAX_HISTORY) {
      out.add(new RuleViolation(at + "history", "must be from " + WeirProperties.RulesStore.MIN_HISTORY + " to "
          + WeirProperties.RulesStore.MAX_HISTORY + ", was " + store.getHistory()));
    }
  }

  private static void rules(WeirProperties.Rules rules, List<RuleViolation> out) {
    String at = PREFIX + "rules.";
    if (rules.isWriteBack() && rules.getFile() == null) {
      out.add(new RuleViolation(at + "write-back", "needs weir.rules.file: endpoint writes are saved to that file"));
    }
    if (rules.getFile() != null && !isRuleFileName(String.valueOf(rules.getFile().getFileName()))) {
      out.add(new RuleViolation(at + "file", "must end with .yml, .yaml (YAML) or .json (JSON), was '"
          + rules.getFile() + "'"));
    }
  }

  private static void ai(WeirProperties.Ai ai, List<RuleViolation> out) {
    String at = PREFIX + "ai.";
    long estimate = ai.getEstimateTokens();
    if (estimate < 1 || estimate > Integer.MAX_VALUE) {
      out.add(new RuleViolation(at + "estimate-tokens", "must be from 1 to " + Integer.MAX_VALUE + " (the permits a"
          + " call takes), was " + estimate));
    }
    String resource = ai.getResource();
    if (resource == null || resource.isBlank()) {
      out.add(new RuleViolation(at + "resource", "is required: the resource of ChatClient calls"));
    } else {
      // the rules' own check of a resource name (length, no control character)
      for (RuleViolation violation : dev.weir.rule.RuleSet.of(dev.weir.rule.FlowRule.qps(resource, 1)).validate()) {
        if (violation.field().endsWith("resource")) {
          out.add(new RuleViolation(at + "resource", violation.message()));
        }
      }
    }
  }

  /** Whether a rule file of this name is read: it ends with {@code .yml}, {@code .yaml} or {@code .json}. */
  public static boolean isRuleFileName(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.endsWith(".yml") || lower.endsWith(".yaml") || lower.endsWith(".json");
  }

  private static void positive(String path, @Nullable Duration value, Duration max, String maxText,
      List<RuleViolation> out) {
    if (value == null || value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
      out.add(new RuleViolation(path, "must be a positive duration up to " + maxText + ", was " + value));
    }
  }
}
