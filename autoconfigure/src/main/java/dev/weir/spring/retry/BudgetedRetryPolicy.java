package dev.weir.spring.retry;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A {@link RetryPolicy} that retries what its delegate retries, but never a Weir refusal, and,
 * with a budget, only while the budget has room: the budget is asked when the delegate's back-off
 * has decided to retry, before the template waits, and a retry over budget ends the back-off
 * ({@link BackOffExecution#STOP}), so that the template gives up at once with the last exception
 * as the cause of its {@code RetryException}.
 *
 * <p>A retry taken from the budget is counted even when the template then gives up before making
 * it (its timeout would pass during the wait, or the thread is interrupted while waiting): the
 * budget errs on the strict side.
 */
final class BudgetedRetryPolicy implements RetryPolicy {

  private final RetryPolicy delegate;
  private final @Nullable RetryBudget budget;

  BudgetedRetryPolicy(RetryPolicy delegate, @Nullable RetryBudget budget) {
    this.delegate = delegate instanceof BudgetedRetryPolicy budgeted ? budgeted.delegate : delegate;
    this.budget = budget;
  }

  /** The policy this one adds the budget to. */
  RetryPolicy delegate() {
    return delegate;
  }

  /** The budget, or null when only refusals are kept from being retried. */
  @Nullable RetryBudget budget() {
    return budget;
  }

  @Override
  public boolean shouldRetry(Throwable throwable) {
    return !Refusal.in(throwable) && delegate.shouldRetry(throwable);
  }

  @Override
  public Duration getTimeout() {
    return delegate.getTimeout();
  }

  @Override
  public BackOff getBackOff() {
    BackOff backOff = delegate.getBackOff();
    RetryBudget retries = budget;
    if (retries == null) {
      return backOff;
    }
    return () -> {
      BackOffExecution execution = backOff.start();
      return () -> {
        long wait = execution.nextBackOff();
        return wait == BackOffExecution.STOP || !retries.tryAcquireRetry() ? BackOffExecution.STOP : wait;
      };
    };
  }

  @Override
  public String toString() {
    return "BudgetedRetryPolicy[" + delegate + (budget == null ? ", refusals not retried]" : ", " + budget + "]");
  }
}
