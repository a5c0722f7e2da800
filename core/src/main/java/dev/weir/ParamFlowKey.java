package dev.weir;

/**
 * Implemented by an argument type that chooses its own key for hot-parameter rules; otherwise the
 * argument itself is the key (so it needs {@code equals} and {@code hashCode}). Per-value
 * exceptions of a rule match {@code String.valueOf(key)}.
 */
@FunctionalInterface
public interface ParamFlowKey {

  /** Returns the key that calls with this argument are counted under; null means not limited. */
  Object paramFlowKey();
}
