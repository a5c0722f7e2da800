package dev.weir.spring.properties;

import org.jspecify.annotations.Nullable;

/** An argument value with a count of its own ({@code weir.param-flow[*].exceptions[*]}). */
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
