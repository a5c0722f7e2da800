package dev.weir.rule;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The optional {@code name} of a flow or hot-parameter rule: what HTTP's {@code RateLimit-Policy}
 * and {@code RateLimit} headers call the rule's policy, and what the endpoint, the dashboard and
 * the logs show. A name is written into a response header as a structured-field string, and comes
 * from files and the endpoint like every other field, so it is held to a small alphabet that needs
 * no escaping anywhere: 1 to {@value #MAX_LENGTH} characters, each an ASCII letter, a digit, or one
 * of {@code . _ : -}. No space, quote, backslash, control character (CR and LF included) or
 * non-ASCII character gets in. A blank name is no name: the rule is named by its kind and position
 * ({@code flow-0}, {@code param-flow-1}), a form a name may not take. The flow and hot-parameter
 * rules of one resource have names of their own (a response names each policy once).
 */
public final class RuleNames {

  /** The longest name, in characters. */
  public static final int MAX_LENGTH = 64;

  private RuleNames() {
  }

  /**
   * Whether {@code name} is a valid rule name: 1 to {@link #MAX_LENGTH} characters of the class
   * comment's alphabet, and not the name of an unnamed rule.
   */
  public static boolean isValid(@Nullable String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_LENGTH) {
      return false;
    }
    return firstNotAllowed(name) < 0 && !isGenerated(name);
  }

  /** Whether {@code name} is what an unnamed rule is called: {@code flow-<n>} or {@code param-flow-<n>}. */
  private static boolean isGenerated(String name) {
    String index = name.startsWith("flow-") ? name.substring(5)
        : name.startsWith("param-flow-") ? name.substring(11) : null;
    return index != null && !index.isEmpty() && index.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** The index of the first character of {@code name} outside the alphabet, or -1. */
  private static int firstNotAllowed(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '.' || c == '_' || c == ':' || c == '-';
      if (!allowed) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Adds a violation of field {@code name} unless {@code name} is null or valid. The message does
   * not echo the value (it may hold line breaks meant for a log): it gives the length, or the
   * position and code of the first character not allowed.
   */
  static void check(@Nullable String name, List<RuleViolation> out) {
    if (name == null || isValid(name)) {
      return;
    }
    if (!name.isEmpty() && name.length() <= MAX_LENGTH && firstNotAllowed(name) < 0) {
      out.add(new RuleViolation("name", "'" + name + "' is how an unnamed rule is called (flow-0, param-flow-1);"
          + " choose another name, or none"));
      return;
    }
    String found;
    if (name.isEmpty() || name.length() > MAX_LENGTH) {
      found = "was " + name.length() + " characters";
    } else {
      int at = firstNotAllowed(name);
      found = String.format("has U+%04X at position %d", (int) name.charAt(at), at);
    }
    out.add(new RuleViolation("name", "must be 1 to " + MAX_LENGTH + " characters, each a letter (A-Z, a-z), a digit"
        + " or one of . _ : - (it is sent in HTTP headers); it " + found));
  }

  /**
   * Adds a violation for each flow or hot-parameter rule whose name an earlier rule of the same
   * resource has (flow rules first, then hot-parameter rules, in order), naming the earlier one.
   * Names that are not valid are reported by {@link #check} and skipped here.
   */
  static void checkUnique(List<FlowRule> flow, List<ParamFlowRule> paramFlow, List<RuleViolation> out) {
    Map<List<String>, String> first = new HashMap<>();
    for (int i = 0; i < flow.size(); i++) {
      unique(flow.get(i).resource(), flow.get(i).name(), "flow[" + i + "]", first, out);
    }
    for (int i = 0; i < paramFlow.size(); i++) {
      unique(paramFlow.get(i).resource(), paramFlow.get(i).name(), "param-flow[" + i + "]", first, out);
    }
  }

  private static void unique(String resource, @Nullable String name, String at, Map<List<String>, String> first,
      List<RuleViolation> out) {
    if (!isValid(name)) {
      return;
    }
    String earlier = first.putIfAbsent(List.of(resource, name), at);
    if (earlier != null) {
      out.add(new RuleViolation(at + ".name", "'" + name + "' is already the name of " + earlier + " of the same"
          + " resource; each rate rule of a resource needs a name of its own (a response names each policy once)"));
    }
  }
}
