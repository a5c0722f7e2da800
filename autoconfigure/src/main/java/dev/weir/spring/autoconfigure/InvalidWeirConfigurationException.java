package dev.weir.spring.autoconfigure;

import dev.weir.rule.RuleViolation;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when the application starts with an invalid {@code weir.*} configuration. It lists every
 * problem found, each with the full property path ({@code weir.flow[0].count}) and what is
 * allowed; a {@link org.springframework.boot.diagnostics.FailureAnalyzer} turns it into the start
 * failure report, with where each value was set.
 */
public final class InvalidWeirConfigurationException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final transient List<RuleViolation> violations;

  /**
   * Creates the exception.
   *
   * @param violations the problems, with full property paths; not empty
   */
  public InvalidWeirConfigurationException(List<RuleViolation> violations) {
    super(violations.stream().map(RuleViolation::toString)
        .collect(Collectors.joining("\n\t", "Invalid Weir configuration:\n\t", "")));
    if (violations.isEmpty()) {
      throw new IllegalArgumentException("an InvalidWeirConfigurationException needs at least one violation");
    }
    this.violations = List.copyOf(violations);
  }

  /** Returns every problem found, fields named by their full property path. */
  public List<RuleViolation> violations() {
    return violations;
  }
}
