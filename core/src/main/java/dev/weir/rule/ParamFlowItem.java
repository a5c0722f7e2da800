package dev.weir.rule;

/**
 * A per-value exception of a {@link ParamFlowRule}: calls whose parameter key, as a string, equals
 * {@code value} get {@code count} instead of the rule's count.
 *
 * @param value the key as a string ({@code String.valueOf(key)})
 * @param count the limit for that value
 */
public record ParamFlowItem(String value, double count) {
}
