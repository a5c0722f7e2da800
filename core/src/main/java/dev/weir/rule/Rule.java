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
}
