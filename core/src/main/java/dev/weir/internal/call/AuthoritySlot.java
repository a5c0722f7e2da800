package dev.weir.internal.call;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.RuleKind;
import dev.weir.spi.SlotOrder;

/**
 * Refuses calls whose origin a rule of the resource does not allow. Calls without an origin pass.
 * A rule in shadow mode counts such a call as a shadow refusal and lets it go on to the next rule.
 */
public final class AuthoritySlot extends Slot {

  public AuthoritySlot() {
    super(SlotOrder.AUTHORITY, ENTRY);
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return rules.authority.length > 0;
  }

  @Override
  boolean entry(Call call) {
    AuthorityRule[] rules = call.rules.authority;
    for (int i = 0; i < rules.length; i++) {
      AuthorityRule rule = rules[i];
      if (!rule.permits(call.origin)) {
        if (!call.refuseUnlessShadow(call.rules.authorityShadow[i], RuleKind.AUTHORITY, rule, 0)) {
          return false;
        }
      }
    }
    return true;
  }
}
