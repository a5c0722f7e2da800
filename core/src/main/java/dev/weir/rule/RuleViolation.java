package dev.weir.rule;

import java.util.Objects;

/**
 * One problem found in a rule: the field it concerns, relative to the validated list
 * (for example {@code [0].count}, named as in YAML), and what would be allowed.
 *
 * @param field the path of the offending field, such as {@code [2].ref-resource}
 * @param message what is wrong and what is allowed
 */
public record RuleViolation(String field, String message) {

  /** Checks that both parts are present. */
  public RuleViolation {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  /** Returns this violation with {@code prefix} in front of its field, as in {@code weir.flow[0].count}. */
  public RuleViolation under(String prefix) {
    return new RuleViolation(prefix + field, message);
  }

  @Override
  public String toString() {
    return field + ": " + message;
  }
}
