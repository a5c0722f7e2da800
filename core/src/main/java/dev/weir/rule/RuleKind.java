package dev.weir.rule;

import java.util.Locale;

/**
 * The kinds of rules, with the tag each has in configuration, metrics and HTTP answers:
 * {@code flow}, {@code degrade}, {@code param-flow}, {@code authority}, {@code system}. A refusal
 * names the kind of the rule that refused ({@code BlockException.ruleKind()}), and statistics count
 * refusals per kind.
 */
public enum RuleKind {
  /** Rate and concurrency limits ({@link FlowRule}). */
  FLOW("flow"),
  /** Circuit breakers ({@link DegradeRule}). */
  DEGRADE("degrade"),
  /** Hot-parameter limits ({@link ParamFlowRule}). */
  PARAM_FLOW("param-flow"),
  /** Origin allow and deny lists ({@link AuthorityRule}). */
  AUTHORITY("authority"),
  /** Whole-application protection of inbound calls ({@link SystemRule}). */
  SYSTEM("system");

  private final String tag;

  RuleKind(String tag) {
    this.tag = tag;
  }

  /** Returns the tag of this kind: {@code flow}, {@code degrade}, {@code param-flow}, {@code authority} or {@code system}. */
  public String tag() {
    return tag;
  }

  /**
   * Returns the kind with {@code tag}, read case-insensitively.
   *
   * @throws IllegalArgumentException for another tag
   */
  public static RuleKind ofTag(String tag) {
    String wanted = tag.toLowerCase(Locale.ROOT);
    for (RuleKind kind : values()) {
      if (kind.tag.equals(wanted)) {
        return kind;
      }
    }
    throw new IllegalArgumentException("unknown rule kind '" + tag + "'; expected flow, degrade, param-flow, authority"
        + " or system");
  }
}
