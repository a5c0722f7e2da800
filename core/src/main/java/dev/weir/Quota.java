package dev.weir;

import dev.weir.rule.RuleKind;
import java.time.Duration;

/**
 * What one rate rule of a resource has left for a call, as its limiter knows it at the moment of
 * reading ({@link Weir#quotas}): a reading, not a reservation.
 *
 * @param kind {@link RuleKind#FLOW} or {@link RuleKind#PARAM_FLOW}
 * @param index the rule's position among the resource's rules of its kind
 * @param limit the permits the rule allows per {@code window} (for a key, its own count)
 * @param window the span the limit applies to
 * @param remaining the permits the limiter would admit now; a token bucket may show up to its
 *     {@code burst} more than {@code limit}
 * @param reset the time until everything the limiter counts now has aged out, so that the full
 *     limit is available again; zero when nothing is counted
 */
public record Quota(RuleKind kind, int index, long limit, Duration window, long remaining, Duration reset) {
}
