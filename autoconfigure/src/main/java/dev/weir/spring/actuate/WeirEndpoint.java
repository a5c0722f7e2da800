package dev.weir.spring.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.ResourceStatistics;
import dev.weir.RuleRegistry;
import dev.weir.Weir;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.LogText;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.rules.RuleFileChangingException;
import dev.weir.spring.rules.RuleSources;
import java.io.UncheckedIOException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code weir} actuator endpoint: live statistics and rules of every resource of an engine,
 * its system rule, and the replacement of a resource's rules at runtime.
 *
 * <ul>
 *   <li>{@code GET /actuator/weir}: {@code {"resources": {name: resource, ...}, "system": {...}}},
 *       resources in name order; {@code system} holds the limits of the system rule that are on; in
 *       cluster mode {@code cluster} describes the connection to the store. A browser asking for
 *       {@code text/html} gets the live dashboard page instead ({@link WeirEndpointFormat},
 *       {@link WeirEndpointWebExtension}).
 *   <li>{@code GET /actuator/weir/{resource}}: one resource, {@code passQps}, {@code blockQps},
 *       {@code successQps}, {@code exceptionQps}, {@code avgRt} (ms), {@code activeCalls},
 *       {@code circuitState} ({@code closed}, {@code open}, {@code half_open}),
 *       {@code adaptiveLimit} (the current limit of its {@code adaptive} flow rule, the lowest of
 *       several; left out when it has none),
 *       {@code totals} ({@code passed}, {@code succeeded}, {@code failed}, {@code responseTimeMillis},
 *       since the resource was first seen), {@code blocked} (per kind, permits refused, ever),
 *       {@code shadowBlocked} (per kind, what its rules in shadow mode would have refused, ever) and
 *       {@code rules} ({@code flow}, {@code degrade}, {@code paramFlow}, {@code authority}, each rule
 *       with its {@code shadow} flag); not found when the engine neither tracks the resource nor has
 *       rules for it.
 *   <li>{@code POST /actuator/weir/{resource}} with {@code {"flow": [...], "degrade": [...],
 *       "paramFlow": [...], "authority": [...]}}: replaces the rules of the kinds given, and only
 *       those, of that resource, at once; an empty list removes that kind. Rules are written with
 *       the keys of {@code application.yml} in camelCase (or as in YAML) and the same values
 *       ({@code 500ms}, {@code PT1H}, {@code warm-up}); a rule without {@code resource} is for the
 *       resource of the request, and a rule naming another resource is refused. They are checked
 *       by {@link WeirPropertiesValidator} as at start: on any problem nothing changes and the answer
 *       lists every problem with its field ({@code flow[0].count}). A key at the top of the body
 *       that is not one of those kinds (a misspelt {@code degarde}, or {@code resource}: the
 *       resource is the one in the path) and a query parameter are such problems, named by
 *       themselves. Rules of other resources, and the state of rules left equal (circuit breakers,
 *       warm-up), are kept; so is the state of a rule of which only {@code shadow} or {@code name}
 *       changed. A rule that does not set {@code shadow} takes {@code weir.shadow}. Each replacement is recorded by
 *       the {@link RuleChangeLog} (logged with source {@code endpoint} and the principal, and
 *       audited); each refused one is logged at INFO.
 * </ul>
 *
 * <p>With the rules store ({@code weir.rules-store.enabled}, {@link FleetRules}), a write is checked
 * here as above and then published as a new version of the fleet's rules, which every instance
 * applies (docs/fleet.md); over HTTP ({@link WeirEndpointWebExtension}) the answer names the
 * version, {@code If-Match} makes it conditional (409), a store that does not answer gives 503,
 * and {@code fleet}, {@code fleet/history} and {@code fleet/rollback/{version}} show and change the
 * fleet's rules.
 *
 * <p>The write operation is closed unless the operator opens it: the endpoint's default access is
 * read-only, so {@code POST} is not mapped (Spring MVC answers 405) until
 * {@code management.endpoint.weir.access=unrestricted}.
 *
 * <p>Rules are shown in the form they are posted in, so that what is read can be changed and
 * posted back. The write operation takes the whole body as one argument, {@code rules}: the JSON
 * text of the object (JMX clients pass it so; a kind may also be given as the JSON text of its
 * list). Over HTTP on Spring MVC, {@link WeirEndpointRequestBodyAdvice} hands it the posted object
 * so, since Spring Boot reads an operation's body as a map of strings; and
 * {@link WeirEndpointWebExtension} answers a refused replacement with {@code 400} and the problems.
 * Other technologies get an {@link InvalidEndpointRequestException}.
 */
@Endpoint(id = "weir", defaultAccess = Access.READ_ONLY)
public final class WeirEndpoint {

  /** The source name of the changes made here, in the {@link RuleChangeLog}. */
  public static final String SOURCE = "endpoint";

  private static final Log logger = LogFactory.getLog(WeirEndpoint.class);

  private final Weir weir;
  private final @Nullable RuleSources sources;
  private final boolean shadowByDefault;
  private final RuleChangeLog changes;
  private final Object replacing = new Object();
  private final Function<String, @Nullable String> unusedWarning;
  private final @Nullable FleetRules fleet;

  /**
   * Creates an endpoint whose posted rules are in force unless they say {@code shadow: true}, and
   * whose changes are logged but not audited.
   *
   * @param weir the engine shown and changed
   */
  public WeirEndpoint(Weir weir) {
    this(weir, null, false, new RuleChangeLog(null));
  }

  /**
   * Creates the endpoint, whose writes go through the engine's rule sources when given: they are
   * then the last source, and with {@code weir.rules.write-back} are saved to the rule file.
   *
   * @param weir the engine shown and changed
   * @param sources the rule sources of {@code weir}; null to change the engine directly
   * @param shadowByDefault whether a posted rule that does not set {@code shadow} is in shadow mode
   *     ({@code weir.shadow})
   * @param changes where accepted changes are recorded
   */
  public WeirEndpoint(Weir weir, @Nullable RuleSources sources, boolean shadowByDefault, RuleChangeLog changes) {
    this(weir, sources, shadowByDefault, changes, resource -> null);
  }

  /**
   * Creates the endpoint as {@link #WeirEndpoint(Weir, RuleSources, boolean, RuleChangeLog)} does,
   * whose accepted writes carry a warning when their resource is one the application does not use.
   *
   * @param weir the engine shown and changed
   * @param sources the rule sources of {@code weir}; null to change the engine directly
   * @param shadowByDefault whether a posted rule that does not set {@code shadow} is in shadow mode
   * @param changes where accepted changes are recorded
   * @param unusedWarning the warning for rules written for a resource, or null when the application
   *     uses it (declares it, or a call used it since start): a misspelt name guards nothing
   */
  public WeirEndpoint(Weir weir, @Nullable RuleSources sources, boolean shadowByDefault, RuleChangeLog changes,
      Function<String, @Nullable String> unusedWarning) {
    this(weir, sources, shadowByDefault, changes, unusedWarning, null);
  }

  /**
   * Creates the endpoint as {@link #WeirEndpoint(Weir, RuleSources, boolean, RuleChangeLog, Function)}
   * does, whose writes go to the rules store when {@code fleet} is given ({@code weir.rules-store}):
   * each accepted write is a new version of the fleet's rules, which every instance applies.
   *
   * @param weir the engine shown and changed
   * @param sources the rule sources of {@code weir}; null to change the engine directly
   * @param shadowByDefault whether a posted rule that does not set {@code shadow} is in shadow mode
   * @param changes where accepted changes are recorded
   * @param unusedWarning the warning for rules written for a resource the application does not use
   * @param fleet the fleet's rules in the store; null without the store
   */
  public WeirEndpoint(Weir weir, @Nullable RuleSources sources, boolean shadowByDefault, RuleChangeLog changes,
      Function<String, @Nullable String> unusedWarning, @Nullable FleetRules fleet) {
    this.fleet = fleet;
    this.unusedWarning = unusedWarning;
    this.weir = weir;
    this.sources = sources != null && sources.isAttached() ? sources : null;
    this.shadowByDefault = shadowByDefault;
    this.changes = changes;
  }

  /**
   * Returns every resource of the engine, the system rule, and the cluster connection in cluster
   * mode. Over HTTP the {@link WeirEndpointWebExtension} answers this operation, and a browser gets
   * the dashboard page instead ({@link WeirEndpointFormat}).
   */
  @ReadOperation(producesFrom = WeirEndpointFormat.class)
  public WeirDescriptor weir() {
    Map<String, RuleSet> rules = weir.rules().rulesByResource();
    Set<String> names = new HashSet<>(weir.resources());
    names.addAll(rules.keySet());
    Map<String, ResourceDescriptor> resources = new TreeMap<>();
    for (String name : names) {
      resources.put(name, describe(name, rules.getOrDefault(name, RuleSet.empty())));
    }
    ClusterStatus cluster = weir.cluster();
    Map<String, Object> clusterJson = null;
    if (cluster != null) {
      clusterJson = new LinkedHashMap<>();
      clusterJson.put("store", cluster.description());
      clusterJson.putAll(ClusterJson.state(cluster));
    }
    return new WeirDescriptor(resources, RulesJson.system(weir.rules().systemRule()), clusterJson);
  }

  /**
   * Returns one resource, or null (404 over HTTP) when the engine neither tracks it nor has rules
   * for it.
   */
  @ReadOperation
  public @Nullable ResourceDescriptor resource(@Selector String resource) {
    RuleSet rules = weir.rules().rules(resource);
    if (weir.statistics(resource) == null && rules.isEmpty()) {
      return null;
    }
    return describe(resource, rules, warnings(resource, rules));
  }

  /**
   * Replaces the rules of the kinds given of one resource; see the type's description.
   *
   * @param rules the JSON object of the kinds replaced, {@code {"flow": [...], ...}}
   * @return the resource as it is afterwards
   * @throws InvalidEndpointRequestException when the rules are refused; nothing changed then
   */
  @WriteOperation
  public ResourceDescriptor replaceRules(SecurityContext securityContext, @Selector String resource,
      @Nullable String rules) {
    Replacement replacement = replace(securityContext, resource, rules, null);
    if (replacement.refused() != null) {
      String reason = replacement.refused().detail();
      throw new InvalidEndpointRequestException("Invalid rules for '" + resource + "': " + reason, reason);
    }
    FleetRules.Outcome published = replacement.published();
    if (published != null) {
      if (published.status() != 200) {
        String reason = String.valueOf(published.body() instanceof Map<?, ?> map ? map.get("detail") : published.body());
        throw new InvalidEndpointRequestException("Rules for '" + resource + "' not written to the store: " + reason,
            reason);
      }
      return describe(resource, weir.rules().rules(resource));
    }
    return Objects.requireNonNull(replacement.done());
  }

  /** The fleet's rules in the store; null without the store. */
  @Nullable FleetRules fleet() {
    return fleet;
  }

  /** Replaces rules as {@link #replaceRules} does, and tells the outcome rather than throwing. */
  Replacement replace(SecurityContext securityContext, String resource, @Nullable String rules) {
    return replace(securityContext, resource, rules, null);
  }

  /**
   * Replaces rules as {@link #replaceRules} does, and tells the outcome rather than throwing; with
   * the rules store, publishes them as a new version instead, based on version {@code ifMatch}
   * when given (the request's {@code If-Match}).
   */
  Replacement replace(SecurityContext securityContext, String resource, @Nullable String rules,
      @Nullable String ifMatch) {
    Long expected = null;
    if (fleet != null && ifMatch != null) {
      expected = IfMatch.version(ifMatch);
      if (expected == null && !IfMatch.any(ifMatch)) {
        return refuse(securityContext, resource, List.of(new RuleViolation("If-Match",
            "must be a version of the rules store, as \"7\" (or *), was '" + LogText.of(ifMatch) + "'")));
      }
    }
    PostedRules posted = PostedRules.read(resource, rules);
    List<RuleViolation> violations = new ArrayList<>(posted.unknownKinds());
    violations.addAll(posted.bindingViolations());
    if (violations.isEmpty() && posted.givesNoKind()) {
      violations.add(new RuleViolation("body", "must give at least one of " + String.join(", ", PostedRules.KINDS)
          + " (a list of rules each; [] removes that kind)"));
    }
    if (!posted.bindingViolations().isEmpty() || posted.givesNoKind()) {
      return refuse(securityContext, resource, violations);
    }
    RuleLists given = posted.lists();
    RuleSet givenRules = given.toRuleSet(shadowByDefault);
    synchronized (replacing) {
      violations.addAll(WeirPropertiesValidator.validateRules(given,
          posted.applyTo(givenRules, weir.rules().rules(resource)), weir.rules()));
      if (!violations.isEmpty()) {
        return refuse(securityContext, resource, violations);
      }
      if (fleet != null) {
        Principal principal = securityContext.getPrincipal();
        return new Replacement(null, null, fleet.write(principal != null ? principal.getName() : null, resource,
            posted.kinds(), givenRules, expected));
      }
      // Read and write in one step of the engine, so that a change made by application code
      // between this endpoint's read and its write cannot be overwritten.
      RuleSet[] written = new RuleSet[1];
      RuleSet before;
      try {
        if (sources != null) {
          RuleRegistry.Change change = sources.write(resource, posted.kinds(), givenRules);
          before = change.before();
          written[0] = change.after();
        } else {
          before = weir.rules().update(resource, current -> written[0] = posted.applyTo(givenRules, current));
        }
      } catch (InvalidRulesException ex) {
        return refuse(securityContext, resource, ex.violations());
      } catch (RuleFileChangingException ex) {
        return refuse(securityContext, InvalidRulesDescriptor.changing(resource, List.of(
            new RuleViolation("weir.rules.file", ex.getMessage()))));
      } catch (UncheckedIOException ex) {
        return refuse(securityContext, resource, List.of(new RuleViolation("weir.rules.file",
            "the rules could not be saved to the rule file, nothing changed: " + ex.getMessage())));
      }
      logReplaced(securityContext, resource, before, written[0], posted);
      return new Replacement(describe(resource, written[0], warnings(resource, written[0])), null, null);
    }
  }

  /** What to warn of about {@code rules} of {@code resource}: rules for a resource the application does not use. */
  private List<String> warnings(String resource, RuleSet rules) {
    String warning = rules.isEmpty() ? null : unusedWarning.apply(resource);
    return warning == null ? List.of() : List.of(warning);
  }

  private ResourceDescriptor describe(String resource, RuleSet rules) {
    return describe(resource, rules, List.of());
  }

  private ResourceDescriptor describe(String resource, RuleSet rules, List<String> warnings) {
    RulesDescriptor rulesDescriptor = new RulesDescriptor(RulesJson.of(rules.flow()),
        RulesJson.of(rules.degrade()), RulesJson.of(rules.paramFlow()),
        RulesJson.of(rules.authority()));
    ResourceStatistics statistics = weir.statistics(resource);
    Map<String, Long> blocked = new LinkedHashMap<>();
    Map<String, Long> shadowBlocked = new LinkedHashMap<>();
    for (RuleKind kind : RuleKind.values()) {
      blocked.put(RulesJson.key(kind), statistics == null ? 0 : statistics.totalBlocked(kind));
      shadowBlocked.put(RulesJson.key(kind), statistics == null ? 0 : statistics.totalShadowBlocked(kind));
    }
    if (statistics == null) {
      return new ResourceDescriptor(0, 0, 0, 0, 0, 0, RulesJson.circuitState(CircuitState.CLOSED), null,
          new TotalsDescriptor(0, 0, 0, 0), blocked, shadowBlocked, rulesDescriptor, warnings);
    }
    TotalsDescriptor totals = new TotalsDescriptor(statistics.totalPassed(), statistics.totalSucceeded(),
        statistics.totalFailed(), statistics.totalResponseTimeNanos() / 1e6);
    return new ResourceDescriptor(statistics.passQps(), statistics.blockQps(), statistics.successQps(),
        statistics.exceptionQps(), statistics.avgRtMillis(), statistics.activeCalls(),
        RulesJson.circuitState(statistics.circuitState()), adaptiveLimit(statistics), totals, blocked, shadowBlocked,
        rulesDescriptor, warnings);
  }

  private static @Nullable Integer adaptiveLimit(ResourceStatistics statistics) {
    int limit = statistics.adaptiveLimit();
    return limit < 0 ? null : limit;
  }

  private static Replacement refuse(SecurityContext securityContext, String resource,
      List<RuleViolation> violations) {
    return refuse(securityContext, InvalidRulesDescriptor.of(resource, violations));
  }

  private static Replacement refuse(SecurityContext securityContext, InvalidRulesDescriptor refused) {
    String resource = refused.resource();
    if (logger.isInfoEnabled()) {
      logger.info("Rules of '" + LogText.of(resource) + "' not replaced through the weir endpoint"
          + LogText.of(by(securityContext)) + ": " + LogText.of(refused.detail()));
    }
    return new Replacement(null, refused, null);
  }

  private void logReplaced(SecurityContext securityContext, String resource, RuleSet before, RuleSet after,
      PostedRules posted) {
    List<RuleKind> kinds = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    if (posted.gives("flow")) {
      kinds.add(RuleKind.FLOW);
      changed.add(change("flow", RulesJson.of(before.flow()), RulesJson.of(after.flow())));
    }
    if (posted.gives("degrade")) {
      kinds.add(RuleKind.DEGRADE);
      changed.add(change("degrade", RulesJson.of(before.degrade()), RulesJson.of(after.degrade())));
    }
    if (posted.gives("param-flow")) {
      kinds.add(RuleKind.PARAM_FLOW);
      changed.add(change("param-flow", RulesJson.of(before.paramFlow()),
          RulesJson.of(after.paramFlow())));
    }
    if (posted.gives("authority")) {
      kinds.add(RuleKind.AUTHORITY);
      changed.add(change("authority", RulesJson.of(before.authority()),
          RulesJson.of(after.authority())));
    }
    Principal principal = securityContext.getPrincipal();
    changes.changed(SOURCE, principal != null ? principal.getName() : null, resource, kinds,
        String.join("; ", changed));
  }

  private static String change(String kind, List<Map<String, Object>> before, List<Map<String, Object>> after) {
    before.forEach(rule -> rule.remove("resource"));
    after.forEach(rule -> rule.remove("resource"));
    return before.equals(after) ? kind + " unchanged " + after : kind + " " + before + " -> " + after;
  }

  private static String by(SecurityContext securityContext) {
    Principal principal = securityContext.getPrincipal();
    return principal != null ? " by '" + principal.getName() + "'" : "";
  }

  /**
   * The outcome of a replacement: the resource afterwards, or why nothing changed, or with the rules
   * store, the outcome of publishing the rules as a new version.
   */
  record Replacement(@Nullable ResourceDescriptor done, @Nullable InvalidRulesDescriptor refused,
      FleetRules.@Nullable Outcome published) {
  }

  /**
   * Every resource of the engine, its system rule, and its cluster connection.
   *
   * @param resources each resource by name, in name order
   * @param system the limits of the system rule that are on (YAML keys in camelCase); empty when off
   * @param cluster in cluster mode only (left out otherwise): the store, its breaker, the fallback,
   *     the instances announced, the decisions by outcome ({@code admitted}, {@code blocked},
   *     {@code fallback}; totals since start), those in flight and the last failure
   */
  public record WeirDescriptor(Map<String, ResourceDescriptor> resources, Map<String, Object> system,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Map<String, Object> cluster)
      implements OperationResponseBody {
  }

  /**
   * One resource: statistics of the last second, and rules.
   *
   * @param passQps permits admitted in the last second
   * @param blockQps permits refused in the last second
   * @param successQps calls completed without error in the last second
   * @param exceptionQps calls completed with an error in the last second
   * @param avgRt mean response time of the calls completed in the last second, in milliseconds
   * @param activeCalls admitted calls inside now
   * @param circuitState {@code closed}, {@code open} (any breaker open) or {@code half_open}
   * @param adaptiveLimit the current limit of the resource's {@code adaptive} flow rule (the lowest
   *     of several): how many calls of the highest criticality present may be inside at once; left
   *     out of the JSON when the resource has no adaptive rule
   * @param totals counts since the resource was first seen, which never decrease: the rate between
   *     two reads is their difference over the time between them, with no event missed or counted
   *     twice (the dashboard reads them so)
   * @param blocked permits refused, ever, by the kind of the refusing rule ({@code flow},
   *     {@code degrade}, {@code paramFlow}, {@code authority}, {@code system})
   * @param shadowBlocked permits that rules in shadow mode would have refused, ever, by kind
   *     ({@code flow}, {@code degrade}, {@code paramFlow}, {@code authority}, {@code system})
   * @param rules the rules in force
   * @param warnings in the answer for one resource (a write's, or a read's of that resource; left out
   *     when empty): what is probably not meant, such as rules for a resource the application does
   *     not declare and no call has used since start
   */
  public record ResourceDescriptor(long passQps, long blockQps, long successQps, long exceptionQps, double avgRt,
      long activeCalls, String circuitState,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer adaptiveLimit, TotalsDescriptor totals, Map<String, Long> blocked,
      Map<String, Long> shadowBlocked, RulesDescriptor rules,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> warnings)
      implements OperationResponseBody {
  }

  /**
   * Counts of one resource since it was first seen; they never decrease.
   *
   * @param passed permits admitted
   * @param succeeded calls completed without a recorded error
   * @param failed calls completed with a recorded error
   * @param responseTimeMillis the sum of the response times of the completed calls, in milliseconds
   */
  public record TotalsDescriptor(long passed, long succeeded, long failed, double responseTimeMillis) {
  }

  /**
   * The rules of one resource, with the keys of {@code application.yml} in camelCase and durations
   * such as {@code 500ms}: what can be posted back.
   *
   * @param flow flow rules
   * @param degrade circuit breakers
   * @param paramFlow hot-parameter rules
   * @param authority allow and deny lists
   */
  public record RulesDescriptor(List<Map<String, Object>> flow, List<Map<String, Object>> degrade,
      List<Map<String, Object>> paramFlow, List<Map<String, Object>> authority) {
  }

  /**
   * Why rules were refused; nothing changed.
   *
   * @param title {@code Invalid rules}, or {@code Rule file changing}
   * @param status 400, or 409 when the rule file kept changing under a write-back (the same write
   *     may be tried again)
   * @param detail every problem on one line
   * @param resource the resource whose rules were posted
   * @param violations every problem, with its field ({@code flow[0].count}) and what is allowed
   */
  public record InvalidRulesDescriptor(String title, int status, String detail, String resource,
      List<RuleViolation> violations) implements OperationResponseBody {

    static InvalidRulesDescriptor of(String resource, List<RuleViolation> violations) {
      return new InvalidRulesDescriptor("Invalid rules", 400,
          violations.stream().map(RuleViolation::toString).collect(Collectors.joining("; ")), resource,
          List.copyOf(violations));
    }

    static InvalidRulesDescriptor changing(String resource, List<RuleViolation> violations) {
      return new InvalidRulesDescriptor("Rule file changing", 409,
          violations.stream().map(RuleViolation::toString).collect(Collectors.joining("; ")), resource,
          List.copyOf(violations));
    }
  }
}
