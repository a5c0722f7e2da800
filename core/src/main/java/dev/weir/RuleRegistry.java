package dev.weir;

import dev.weir.internal.call.RuleBook;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.rule.SystemRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * The rules in force in one engine. Rules are replaced per resource, atomically: a call sees either
 * all the old rules of its resource or all the new ones. Every change is validated first; invalid
 * rules are refused with an {@link InvalidRulesException} that lists every problem, and then
 * nothing changes. The state of a rule equal to one already in force (window counts, warm-up
 * progress, queue position, circuit state) is kept across the replacement.
 */
public final class RuleRegistry {

  /**
   * What a cluster-mode rule of an engine without a cluster client is told; an application that
   * builds engines from its own configuration may name its setting instead ({@code weir.cluster.enabled}
   * in the Spring Boot starter).
   */
  public static final String NO_CLUSTER_CLIENT = "needs a cluster client (Weir.Builder.cluster), and this engine has none";

  private final RuleBook book;
  private final boolean clustered;

  RuleRegistry(RuleBook book, boolean clustered) {
    this.book = book;
    this.clustered = clustered;
  }

  /** Returns the rules in force for {@code resource}, of every kind. */
  public RuleSet rules(String resource) {
    return book.rules(resource);
  }

  /** Returns the rules in force for every resource that has some. */
  public Map<String, RuleSet> rulesByResource() {
    return book.all();
  }

  /**
   * Replaces every rule of every kind: afterwards exactly {@code rules} are in force. Each resource
   * changes atomically; resources change one after the other.
   *
   * @throws InvalidRulesException with every problem ({@code flow[0].count}, ...); nothing changed
   */
  public void load(RuleSet rules) {
    List<RuleViolation> violations = validate(rules);
    if (rules.resources().size() > book.maxResources) {
      violations.add(new RuleViolation("resources", "rules for " + rules.resources().size()
          + " resources; the engine takes rules for at most " + book.maxResources + " (max-resources)"));
    }
    throwIfInvalid(violations);
    book.load(rules);
  }

  /**
   * Replaces the rules of one resource, of every kind, atomically; every rule must name it. Kinds
   * given empty lose their rules.
   *
   * @throws InvalidRulesException with every problem; nothing changed
   */
  public void replace(String resource, RuleSet rules) {
    List<RuleViolation> violations = validate(rules);
    addForeign(violations, "flow", rules.flow(), resource);
    addForeign(violations, "degrade", rules.degrade(), resource);
    addForeign(violations, "param-flow", rules.paramFlow(), resource);
    addForeign(violations, "authority", rules.authority(), resource);
    throwIfInvalid(violations);
    book.update(resource, current -> {
      throwIfInvalid(overBound(resource, current, rules, 0));
      return rules;
    });
  }

  /**
   * Replaces the rules of one resource with what {@code change} makes of the rules in force, with
   * no other change to the engine's rules in between (the read and the write are one step). The
   * result is validated like {@link #replace}.
   *
   * @return the rules in force before the change
   * @throws InvalidRulesException with every problem of the result; nothing changed
   */
  public RuleSet update(String resource, UnaryOperator<RuleSet> change) {
    RuleSet[] before = new RuleSet[1];
    book.update(resource, current -> {
      RuleSet after = Objects.requireNonNull(change.apply(current), "change returned null");
      List<RuleViolation> violations = validate(after);
      addForeign(violations, "flow", after.flow(), resource);
      addForeign(violations, "degrade", after.degrade(), resource);
      addForeign(violations, "param-flow", after.paramFlow(), resource);
      addForeign(violations, "authority", after.authority(), resource);
      violations.addAll(overBound(resource, current, after, 0));
      throwIfInvalid(violations);
      before[0] = current;
      return after;
    });
    return before[0];
  }

  /**
   * Replaces the rules of several resources in one step: each gets what {@code change} makes of its
   * rules in force, and no other change to the engine's rules comes between the reads and the
   * writes (a change made meanwhile by code or by another source is read, never overwritten). Every
   * result is validated like {@link #replace} before anything changes; when one is invalid nothing
   * changes. Each resource then changes atomically, one after the other. What rule sources use to
   * merge a source's rules into those in force.
   *
   * @param resources the resources to change
   * @param change the rules a resource should have, given its name and its rules in force; the
   *     rules in force themselves (the same instance or an equal one) leave it unchanged
   * @return the resources that changed, each with its rules before and after, in the order given
   * @throws InvalidRulesException with every problem of every result, each named after its resource
   *     ({@code api flow[0].count}); nothing changed
   */
  public Map<String, Change> update(Collection<String> resources, BiFunction<String, RuleSet, RuleSet> change) {
    Map<String, Change> changes = new LinkedHashMap<>();
    book.update(current -> {
      List<RuleViolation> violations = new ArrayList<>();
      Map<String, RuleSet> next = new LinkedHashMap<>();
      int added = 0; // resources getting rules, less those losing all of theirs, so far
      for (String resource : resources) {
        RuleSet before = current.apply(resource);
        RuleSet after = Objects.requireNonNull(change.apply(resource, before), "change returned null");
        if (after.equals(before)) {
          continue;
        }
        List<RuleViolation> found = validate(after);
        addForeign(found, "flow", after.flow(), resource);
        addForeign(found, "degrade", after.degrade(), resource);
        addForeign(found, "param-flow", after.paramFlow(), resource);
        addForeign(found, "authority", after.authority(), resource);
        found.addAll(overBound(resource, before, after, added));
        added += (after.isEmpty() ? 0 : 1) - (before.isEmpty() ? 0 : 1);
        found.forEach(violation -> violations.add(violation.under(resource + " ")));
        next.put(resource, after);
        changes.put(resource, new Change(before, after));
      }
      throwIfInvalid(violations);
      return next;
    });
    return changes;
  }

  /**
   * The rules of one resource before and after a change.
   *
   * @param before the rules in force before
   * @param after the rules in force after
   */
  public record Change(RuleSet before, RuleSet after) {
  }

  /**
   * Returns every problem of {@code rules} as this engine would judge them, without changing
   * anything: field problems, and rules this engine cannot enforce.
   */
  public List<RuleViolation> validate(RuleSet rules) {
    List<RuleViolation> violations = new ArrayList<>(rules.validate());
    for (RuleViolation violation : clusterViolations(rules.flow())) {
      violations.add(violation.under("flow"));
    }
    List<ParamFlowRule> paramFlow = rules.paramFlow();
    for (int i = 0; i < paramFlow.size(); i++) {
      ParamFlowRule rule = paramFlow.get(i);
      String key = rule.key();
      if (key == null) {
        try {
          book.keys.checkArgumentIndex(rule.resource(), rule.paramIndex());
        } catch (IllegalArgumentException invalid) {
          violations.add(new RuleViolation("param-flow[" + i + "].param-index", String.valueOf(invalid.getMessage())));
        }
      }
      if (key != null) {
        try {
          book.keys.compile(rule.resource(), key);
        } catch (Throwable invalid) { // whatever a compiler throws is a violation, but a VM in trouble
          if (invalid instanceof VirtualMachineError error && !(invalid instanceof StackOverflowError)) {
            throw error;
          }
          violations.add(new RuleViolation("param-flow[" + i + "].key", invalid instanceof IllegalArgumentException
              ? String.valueOf(invalid.getMessage()) : "could not be checked: " + invalid));
        }
      }
      if (rule.clusterMode() && !clustered) {
        violations.add(new RuleViolation("param-flow[" + i + "].cluster-mode",
            NO_CLUSTER_CLIENT));
      } else if (rule.clusterMode() && (rule.grade() != FlowGrade.QPS
          || rule.controlBehavior() != ControlBehavior.REJECT)) {
        violations.add(new RuleViolation("param-flow[" + i + "].cluster-mode",
            "supports grade qps with control-behavior reject only (a token bucket per key in the store)"));
      }
    }
    return violations;
  }

  /** Returns every problem of the system rule {@code rule}, without changing anything. */
  public List<RuleViolation> validate(SystemRule rule) {
    return rule.validate();
  }

  /** Returns the system rule in force; {@link SystemRule#NONE} when off. */
  public SystemRule systemRule() {
    return book.systemRule();
  }

  /**
   * Replaces the system rule.
   *
   * @throws InvalidRulesException with every problem ({@code max-cpu-usage}, ...); nothing changed
   */
  public void replaceSystemRule(SystemRule rule) {
    throwIfInvalid(validate(rule));
    book.replaceSystemRule(rule);
  }

  /**
   * Cluster-mode rules need a cluster client, and two of them must not count the same calls of a
   * resource over the same interval: they would share one counter in the store and each add to it.
   * A rule in shadow mode has a counter of its own ({@code ,shadow} in its scope), so one beside a
   * rule in force, to try a tighter limit, is no duplicate; two shadow rules alike are.
   */
  private List<RuleViolation> clusterViolations(List<FlowRule> rules) {
    List<RuleViolation> violations = new ArrayList<>();
    Map<List<Object>, Integer> counters = new HashMap<>();
    for (int i = 0; i < rules.size(); i++) {
      FlowRule rule = rules.get(i);
      if (!rule.clusterMode()) {
        continue;
      }
      if (!clustered) {
        violations.add(new RuleViolation("[" + i + "].cluster-mode",
            NO_CLUSTER_CLIENT));
      }
      List<Object> counter = Arrays.asList(rule.resource(), rule.limitApp(), rule.strategy(), rule.refResource(),
          rule.interval(), rule.shadow());
      Integer first = counters.putIfAbsent(counter, i);
      if (first != null) {
        violations.add(new RuleViolation("[" + i + "].cluster-mode", "counts the same calls over the same interval as ["
            + first + "], and both would add to one shared counter; merge them into one rule"));
      }
    }
    return violations;
  }

  /**
   * A resource without rules that would get some while {@code maxResources} resources have rules
   * already ({@code added} more counted by the same change): refused, so that rules written at
   * runtime cannot make the engine track resources, and their meters, without bound. Called under
   * the rule book's lock.
   */
  private List<RuleViolation> overBound(String resource, RuleSet before, RuleSet after, int added) {
    if (!before.isEmpty() || after.isEmpty() || book.resourcesWithRules() + added < book.maxResources) {
      return List.of();
    }
    return List.of(new RuleViolation("resource", "'" + resource + "' would be resource number "
        + (book.resourcesWithRules() + added + 1) + " with rules; the engine takes rules for at most "
        + book.maxResources + " (max-resources)"));
  }

  private static void addForeign(List<RuleViolation> out, String kind, List<? extends ResourceRule> rules, String resource) {
    for (int i = 0; i < rules.size(); i++) {
      if (!rules.get(i).resource().equals(resource)) {
        out.add(new RuleViolation(kind + "[" + i + "].resource", "must be '" + resource + "' here, was '"
            + rules.get(i).resource() + "'"));
      }
    }
  }

  private static void throwIfInvalid(List<RuleViolation> violations) {
    if (!violations.isEmpty()) {
      throw new InvalidRulesException(violations);
    }
  }
}
