package dev.weir.internal.limit;

import dev.weir.rule.RuleKind;

/** Where a rule in shadow mode counts what it would have refused: the statistics of the call's resource. */
public interface ShadowCounts {

  /** Counts {@code permits} that a rule of {@code kind} in shadow mode would have refused. */
  void onShadowBlock(int permits, RuleKind kind);
}
