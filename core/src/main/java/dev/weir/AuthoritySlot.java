package dev.weir;

import dev.weir.rule.AuthorityRule;
import dev.weir.spi.SlotOrder;
import org.jspecify.annotations.Nullable;

/** Refuses calls whose origin a rule of the resource does not allow. Calls without an origin pass. */
final class AuthoritySlot extends Slot {

  AuthoritySlot() {
    super(SlotOrder.AUTHORITY, ENTRY);
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return rules.authority.length > 0;
  }

  @Override
  @Nullable BlockException entry(Frame entry) {
    for (AuthorityRule rule : entry.rules.authority) {
      if (!rule.permits(entry.origin)) {
        return new AuthorityException(entry.resource, rule, 0);
      }
    }
    return null;
  }
}
