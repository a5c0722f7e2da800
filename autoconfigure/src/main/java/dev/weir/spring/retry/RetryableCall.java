package dev.weir.spring.retry;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * One call of a {@code @Retryable} method, shared by its attempts: Spring's retry interceptor makes
 * each attempt on a clone of the call's invocation, and the clones share the invocation's user
 * attributes, where the call is kept under {@link #ATTRIBUTE}.
 *
 * <p>The attempts of an imperative call run one after another on the caller's thread, so the
 * fields need no synchronisation.
 */
final class RetryableCall {

  /** The user attribute of the invocation that holds the call. */
  static final String ATTRIBUTE = RetryableCall.class.getName();

  /**
   * What an attempt returns, in place of a result, to end the call: Spring's retry interceptor takes
   * it as a success and stops retrying; {@link RetryableCallAdvice}, just around the retry
   * interceptor, then throws {@link #last} instead. It never leaves the two advices.
   */
  static final Object GIVE_UP = new Object() {
    @Override
    public String toString() {
      return "GIVE_UP";
    }
  };

  final MethodInvocation invocation;
  final @Nullable RetryBudget budget;
  int attempts;
  @Nullable Throwable last;

  RetryableCall(MethodInvocation invocation, @Nullable RetryBudget budget) {
    this.invocation = invocation;
    this.budget = budget;
  }
}
