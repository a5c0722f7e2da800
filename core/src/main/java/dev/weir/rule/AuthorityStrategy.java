package dev.weir.rule;

/** How an authority rule reads its list of origins. */
public enum AuthorityStrategy {
  /** Only the listed origins pass (an allow list). */
  WHITE,
  /** The listed origins are refused (a deny list). */
  BLACK
}
