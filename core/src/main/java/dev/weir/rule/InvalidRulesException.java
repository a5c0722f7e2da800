package dev.weir.rule;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when rules are refused; carries every violation found, not just the first. When it is
 * thrown nothing has changed: the rules in force stay as they were.
 */
public final class InvalidRulesException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final transient List<RuleViolation> violations;

  /**
   * Creates the exception.
   *
   * @param violations the problems found; must not be empty
   */
  public InvalidRulesException(List<RuleViolation> violations) {
    super(violations.stream().map(RuleViolation::toString).collect(Collectors.joining("; ", "Invalid rules: ", "")));
    if (violations.isEmpty()) {
      throw new IllegalArgumentException("an InvalidRulesException needs at least one violation");
    }
    this.violations = List.copyOf(violations);
  }

  /** Returns every violation found, in the order of the rules and their fields. */
  public List<RuleViolation> violations() {
    return violations;
  }
}
