package dev.weir.rule;

/** Which traffic a flow rule looks at. */
public enum FlowStrategy {
  /** The calls of the rule's own resource. */
  DIRECT,
  /**
   * The traffic of another resource ({@code ref-resource}): calls of this resource are refused
   * while that one is over the count. Used to let a write path yield to a read path.
   */
  RELATED,
  /** Only the calls of this resource made inside the context named by {@code ref-resource}. */
  CHAIN
}
