package dev.weir.spring.rules;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one rule source gives: rules of some resources and kinds, kinds of resources it gives
 * empty ({@code cleared}: "this resource has no rules of this kind here"), and perhaps a system
 * rule. A source gives a resource and kind when it has a rule of that kind for the resource, or
 * clears it; only then does it replace what sources before it gave. Immutable.
 */
final class RuleLayer {

  /** The kinds a layer gives per resource; the system rule is given separately. */
  static final List<RuleKind> RESOURCE_KINDS = List.of(RuleKind.FLOW, RuleKind.DEGRADE, RuleKind.PARAM_FLOW,
      RuleKind.AUTHORITY);

  /** Gives nothing. Declared after {@link #RESOURCE_KINDS}, which its constructor reads. */
  static final RuleLayer EMPTY = new RuleLayer(RuleSet.empty(), Set.of(), null);

  /** A resource and kind. */
  record Given(String resource, RuleKind kind) {
  }

  private final RuleSet rules;
  private final Set<Given> cleared;
  private final @Nullable SystemRule system;
  /** The rules by resource and kind, in their order: a lookup per resource and kind, not a scan of every rule. */
  private final Map<Given, List<ResourceRule>> byGiven = new HashMap<>();

  RuleLayer(RuleSet rules, Set<Given> cleared, @Nullable SystemRule system) {
    this.rules = rules;
    this.cleared = Set.copyOf(cleared);
    this.system = system != null && system.isActive() ? system : null;
    for (RuleKind kind : RESOURCE_KINDS) {
      for (ResourceRule rule : of(rules, kind)) {
        byGiven.computeIfAbsent(new Given(rule.resource(), kind), given -> new ArrayList<>()).add(rule);
      }
    }
  }

  RuleSet rules() {
    return rules;
  }

  Set<Given> cleared() {
    return cleared;
  }

  /** The system rule given, or null when this source gives none. */
  @Nullable SystemRule system() {
    return system;
  }

  /** Every resource and kind this layer gives. */
  Set<Given> given() {
    Set<Given> out = new LinkedHashSet<>(cleared);
    out.addAll(byGiven.keySet());
    return out;
  }

  boolean gives(Given given) {
    return cleared.contains(given) || byGiven.containsKey(given);
  }

  /** The rules of a resource and kind; empty when cleared or not given. */
  List<? extends ResourceRule> rules(Given given) {
    return List.copyOf(byGiven.getOrDefault(given, List.of()));
  }

  /**
   * Returns this layer with the rules of {@code resource} of each of {@code kinds} replaced by those
   * of {@code given} (cleared when it has none of a kind), as an endpoint write does.
   */
  RuleLayer with(String resource, Set<RuleKind> kinds, RuleSet given) {
    RuleSet next = rules;
    Set<Given> nextCleared = new HashSet<>(cleared);
    for (RuleKind kind : kinds) {
      Given key = new Given(resource, kind);
      List<ResourceRule> kept = new ArrayList<>(of(next, kind).size());
      for (ResourceRule rule : of(next, kind)) {
        if (!rule.resource().equals(resource)) {
          kept.add(rule);
        }
      }
      List<? extends ResourceRule> added = of(given, kind);
      kept.addAll(added);
      next = withKind(next, kind, kept);
      if (added.isEmpty()) {
        nextCleared.add(key);
      } else {
        nextCleared.remove(key);
      }
    }
    return new RuleLayer(next, nextCleared, system);
  }

  static List<? extends ResourceRule> of(RuleSet rules, RuleKind kind) {
    return switch (kind) {
      case FLOW -> rules.flow();
      case DEGRADE -> rules.degrade();
      case PARAM_FLOW -> rules.paramFlow();
      case AUTHORITY -> rules.authority();
      case SYSTEM -> List.of();
    };
  }

  @SuppressWarnings("unchecked")
  static RuleSet withKind(RuleSet rules, RuleKind kind, List<? extends ResourceRule> list) {
    return switch (kind) {
      case FLOW -> rules.withFlow((List<FlowRule>) list);
      case DEGRADE -> rules.withDegrade((List<DegradeRule>) list);
      case PARAM_FLOW -> rules.withParamFlow((List<ParamFlowRule>) list);
      case AUTHORITY -> rules.withAuthority((List<AuthorityRule>) list);
      case SYSTEM -> rules;
    };
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RuleLayer that && rules.equals(that.rules) && cleared.equals(that.cleared)
        && java.util.Objects.equals(system, that.system);
  }

  @Override
  public int hashCode() {
    return rules.hashCode();
  }
}
