package dev.weir.rule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** What the validators share: indexing a list of rules, spotting duplicates, common field checks. */
final class Checks {

  private Checks() {
  }

  /** Validates each rule with {@code one}, prefixing fields with {@code [i].}, and flags duplicates. */
  static <R> List<RuleViolation> each(List<R> rules, Function<R, List<RuleViolation>> one) {
    List<RuleViolation> violations = new ArrayList<>();
    Map<R, Integer> firstIndex = new HashMap<>();
    for (int i = 0; i < rules.size(); i++) {
      R rule = rules.get(i);
      String at = "[" + i + "]";
      if (rule == null) {
        violations.add(new RuleViolation(at, "is empty"));
        continue;
      }
      for (RuleViolation violation : one.apply(rule)) {
        violations.add(violation.under(at + "."));
      }
      Integer earlier = firstIndex.putIfAbsent(rule, i);
      if (earlier != null) {
        violations.add(new RuleViolation(at, "duplicate of rule [" + earlier + "]; remove one"));
      }
    }
    return violations;
  }

  static void resource(String resource, List<RuleViolation> out) {
    if (resource.isBlank()) {
      out.add(new RuleViolation("resource", "is required"));
    } else {
      name("resource", resource, out);
    }
  }

  /**
   * A name (a resource, a context, an origin) as rules may give it: at most
   * {@link RuleBounds#MAX_NAME_LENGTH} characters and no control character. Names reach logs,
   * meter tags, the endpoint's answers and the cluster store's keys; a rule written through the
   * endpoint or a file must not be able to forge a log line or grow them without bound.
   */
  static boolean name(String field, String value, List<RuleViolation> out) {
    if (value.length() > RuleBounds.MAX_NAME_LENGTH) {
      out.add(new RuleViolation(field, "is " + value.length() + " characters long; at most "
          + RuleBounds.MAX_NAME_LENGTH + " are allowed"));
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        out.add(new RuleViolation(field, "contains a control character (code " + (int) value.charAt(i)
            + ") at position " + i + "; names are printable text"));
        return false;
      }
    }
    return true;
  }

  /** A non-negative finite number up to {@code max}. */
  static boolean count(String field, double value, double max, List<RuleViolation> out) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      out.add(new RuleViolation(field, "must be a number >= 0, was " + value));
      return false;
    }
    if (value > max) {
      out.add(new RuleViolation(field, "must be at most " + (long) max + ", was " + value));
      return false;
    }
    return true;
  }

  /** Whole milliseconds within {@code [min, max]}. */
  static boolean wholeMillis(String field, Duration value, Duration min, Duration max, List<RuleViolation> out) {
    boolean valid = value.compareTo(min) >= 0 && value.compareTo(max) <= 0 && value.toNanos() % 1_000_000 == 0;
    if (!valid) {
      out.add(new RuleViolation(field, "must be whole milliseconds from " + text(min) + " to " + text(max)
          + ", was " + value));
    }
    return valid;
  }

  /**
   * A duration from {@code min} to {@code max}, any precision. Checked before anything converts it
   * to nanoseconds, which overflows beyond about 292 years.
   */
  static boolean within(String field, Duration value, Duration min, Duration max, List<RuleViolation> out) {
    boolean valid = value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
    if (!valid) {
      out.add(new RuleViolation(field, "must be from " + text(min) + " to " + text(max) + ", was " + value));
    }
    return valid;
  }

  /**
   * The time between two admissions of a paced limit, {@code span * factor / count}, at most
   * {@link RuleBounds#MAX_SPACING}; a count of 0 (refuse every call) has none. Reported on
   * {@code field}, the count, with the smallest count the span allows.
   */
  static void spacing(String field, double count, Duration span, double factor, String what,
      List<RuleViolation> out) {
    if (!(count > 0) || Double.isInfinite(count)) {
      return;
    }
    double spanNanos = span.toNanos() * factor;
    double maxSpacing = RuleBounds.MAX_SPACING.toNanos();
    if (spanNanos / count > maxSpacing) {
      out.add(new RuleViolation(field, "spaces " + what + " more than " + text(RuleBounds.MAX_SPACING)
          + " apart; it must be at least " + spanNanos / maxSpacing + " here (or 0 to refuse every call), was "
          + count));
    }
  }

  static String name(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static String text(Duration duration) {
    if (duration.isZero()) {
      return "0ms";
    }
    if (duration.toDays() > 0 && duration.equals(Duration.ofDays(duration.toDays()))) {
      return duration.toDays() + "d";
    }
    if (duration.toHours() > 0 && duration.equals(Duration.ofHours(duration.toHours()))) {
      return duration.toHours() + "h";
    }
    return duration.toMillis() + "ms";
  }
}
