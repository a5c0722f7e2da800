package dev.weir.rule;

/**
 * A rule of any kind. Rules are immutable values: two equal rules are interchangeable, which is how
 * a rules replacement recognises the rules that did not change and keeps their state (warm-up
 * progress, queue position, circuit state). Rules of every kind but {@link SystemRule} guard one
 * resource: they are {@link ResourceRule}s.
 */
public sealed interface Rule permits ResourceRule, SystemRule {

  /** Returns the kind of this rule. */
  RuleKind kind();

  /**
   * Returns whether this rule is in shadow mode: the engine evaluates it with its full state but
   * never refuses a call for it; each call it would have refused goes on and is counted instead
   * ({@code ResourceStatistics.totalShadowBlocked}). A rule and its shadow twin differ only here,
   * and a replacement that only switches this flag keeps the rule's state.
   */
  boolean shadow();

  /** Returns this rule with {@link #shadow()} set to {@code shadow}, everything else equal. */
  Rule withShadow(boolean shadow);
}
