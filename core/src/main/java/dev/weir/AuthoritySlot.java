package dev.weir;

import dev.weir.rule.AuthorityRule;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spi.SlotOrder;
import org.jspecify.annotations.Nullable;

/** Refuses calls whose origin a rule of the resource does not allow. Calls without an origin pass. */
final class AuthoritySlot extends ProcessorSlot {

  @Override
  public int order() {
    return SlotOrder.AUTHORITY;
  }

  @Override
  public @Nullable BlockException entry(Invocation invocation) {
    Frame entry = (Frame) invocation;
    for (AuthorityRule rule : entry.rules.authority) {
      if (!rule.permits(entry.origin)) {
        return new AuthorityException(entry.resource, rule, 0);
      }
    }
    return null;
  }
}
