package dev.weir;

import org.jspecify.annotations.Nullable;

/**
 * Compiles the key expressions of hot-parameter rules ({@code ParamFlowRule.key()}): what a call is
 * counted under, computed from its arguments. An engine compiles each expression once, when the
 * rule is validated and again when it is put in force, never per call; the compiled
 * {@link ParamKey} runs on every call of the resource, from many threads at once, and should not
 * allocate. An engine without one ({@link #NONE}) refuses rules with a key expression. The Spring
 * Boot starter installs one that compiles SpEL.
 */
@FunctionalInterface
public interface KeyExpressions {

  /** Compiles no expression: every rule with a key expression is refused, with the reason. */
  KeyExpressions NONE = (resource, expression) -> {
    throw new IllegalArgumentException("this engine has no key expressions (Weir.Builder.keyExpressions)");
  };

  /**
   * Compiles {@code expression} for the calls of {@code resource}.
   *
   * @param resource the resource whose calls the key is computed for
   * @param expression the expression, not blank
   * @return the compiled key
   * @throws IllegalArgumentException with the reason, when the expression is not valid for the
   *     resource (a syntax error, a name its calls do not have)
   */
  ParamKey compile(String resource, String expression);

  /**
   * Checks that the calls of {@code resource} can be counted by their argument at {@code index}
   * (a hot-parameter rule's {@code param-index}; negative counts from the end). The engine calls it
   * when such a rule is validated. By default every index is accepted.
   *
   * @param resource the resource whose calls the rule counts
   * @param index the rule's {@code param-index}
   * @throws IllegalArgumentException with the reason, when that argument cannot be a key: an
   *     object that stands for the call itself (a request), which would give every call a bucket of
   *     its own and keep it in the per-key table
   */
  default void checkArgumentIndex(String resource, int index) {
  }

  /** A compiled key expression: thread-safe, and called on every call of its resource. */
  @FunctionalInterface
  interface ParamKey {

    /**
     * Returns the key of a call: an object with {@code equals} and {@code hashCode}, a collection
     * or array whose elements are each counted, or null (decided by the rule's {@code null-key}).
     *
     * @param args the call's arguments (empty when it gave none)
     */
    @Nullable Object keyOf(Object[] args);
  }
}
