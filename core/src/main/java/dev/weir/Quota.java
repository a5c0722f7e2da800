package dev.weir;

import dev.weir.rule.RuleKind;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What one rate rule of a resource has left for a call, as its limiter knows it at the moment of
 * reading ({@link Weir#quotas}): a reading, not a reservation. Both numbers err on the safe side:
 * the limiter admits at least {@code remaining} permits now, and at least one more after
 * {@code untilMore}, as long as no other call takes any meanwhile.
 *
 * @param kind {@link RuleKind#FLOW} or {@link RuleKind#PARAM_FLOW}
 * @param index the rule's position among the resource's rules of its kind
 * @param name the rule's {@code name}, or null when it has none
 * @param limit the permits the rule allows per {@code window} (for a key, its own count)
 * @param window the span the limit applies to
 * @param remaining the permits the limiter would admit now, to calls of one permit each; a token
 *     bucket may show up to its {@code burst} more than {@code limit} (and, where its spacing of
 *     {@code window / limit} is rounded to whole nanoseconds, what that rounding admits)
 * @param untilMore the time until the limiter will admit at least one permit more than
 *     {@code remaining}: until enough of what it counts has aged out of the window, or until the
 *     bucket has refilled one more permit. Zero when it never will: nothing is counted (or the
 *     bucket is full), or the rule's count is 0
 */
public record Quota(RuleKind kind, int index, @Nullable String name, long limit, Duration window, long remaining,
    Duration untilMore) {
}
