package dev.weir.spring.retry;

import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryState;
import org.springframework.core.retry.Retryable;

/**
 * Counts the first attempt of every execution of a {@code RetryTemplate} in the budget of the
 * template's {@link BudgetedRetryPolicy}. The template tells its listener after each attempt,
 * the first one included (retry count 0), and before it decides on a retry: so the first attempt is
 * counted before the retry it may lead to is asked for. Stateless; one instance serves every template.
 */
final class FirstAttempts implements RetryListener {

  static final FirstAttempts INSTANCE = new FirstAttempts();

  private FirstAttempts() {
  }

  @Override
  public void onRetryableExecution(RetryPolicy retryPolicy, Retryable<?> retryable, RetryState retryState) {
    if (retryState.getRetryCount() == 0 && retryPolicy instanceof BudgetedRetryPolicy budgeted) {
      RetryBudget budget = budgeted.budget();
      if (budget != null) {
        budget.recordFirstAttempt();
      }
    }
  }
}
