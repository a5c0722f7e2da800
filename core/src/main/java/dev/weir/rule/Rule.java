package dev.weir.rule;

/**
 * A rule of any kind, attached to one resource. Rules are immutable values: two equal rules are
 * interchangeable, which is how a rules replacement recognises the rules that did not change and
 * keeps their state (warm-up progress, queue position, circuit state).
 */
public interface Rule {

  /** Returns the name of the resource this rule guards. */
  String resource();
}
