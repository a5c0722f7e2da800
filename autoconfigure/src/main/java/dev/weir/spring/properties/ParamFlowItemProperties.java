package dev.weir.spring.properties;

import org.jspecify.annotations.Nullable;

/**
 * An argument value with a count of its own, as bound from
 * {@code weir.param-flow[*].exceptions[*]} (the YAML key stays {@code exceptions}). Both values are
 * required; {@link WeirPropertiesValidator} reports them when missing. Not to be confused with the
 * engine's {@code dev.weir.ParamFlowException}, a refusal.
 */
public final class ParamFlowItemProperties {

  /** The argument value, as text. */
  private @Nullable String value;

  /** Its count. */
  private @Nullable Double count;

  public @Nullable String getValue() {
    return value;
  }

  public void setValue(@Nullable String value) {
    this.value = value;
  }

  public @Nullable Double getCount() {
    return count;
  }

  public void setCount(@Nullable Double count) {
    this.count = count;
  }
}
