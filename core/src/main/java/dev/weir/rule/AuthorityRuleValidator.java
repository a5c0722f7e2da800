package dev.weir.rule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks authority rules; see {@link FlowRuleValidator} for the form of the result. */
final class AuthorityRuleValidator {

  private AuthorityRuleValidator() {
  }

  /** Returns every problem of {@code rules}; fields are prefixed with the rule's index. */
  static List<RuleViolation> validate(List<AuthorityRule> rules) {
    return Checks.each(rules, AuthorityRuleValidator::validate);
  }

  /** Returns every problem of one rule. */
  static List<RuleViolation> validate(AuthorityRule rule) {
    List<RuleViolation> out = new ArrayList<>();
    Checks.resource(rule.resource(), out);
    if (rule.limitApp().isEmpty()) {
      out.add(new RuleViolation("limit-app", "must list at least one origin"));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < rule.limitApp().size(); i++) {
      String origin = rule.limitApp().get(i);
      if (origin != null && !Checks.name("limit-app[" + i + "]", origin, out)) {
        continue;
      }
      if (origin == null || origin.isBlank()) {
        out.add(new RuleViolation("limit-app[" + i + "]", "must be an origin name"));
      } else if (!seen.add(origin)) {
        out.add(new RuleViolation("limit-app[" + i + "]", "lists '" + origin + "' twice"));
      }
    }
    return out;
  }
}
