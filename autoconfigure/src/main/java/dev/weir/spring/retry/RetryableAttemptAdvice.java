package dev.weir.spring.retry;

import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.resilience.retry.MethodRetryEvent;

/**
 * The advice just inside Spring's {@code @Retryable} interceptor, around each attempt. A retry
 * (any attempt after the first) is made only if the budget gives it; otherwise the attempt gives up
 * without calling the method. A failed attempt gives up at once, instead of letting Spring wait its
 * back-off and retry, when the failure is a Weir refusal (never retried) or when the budget has no
 * room for a retry now; it publishes the attempt's {@link MethodRetryEvent}, which Spring, taking
 * the give-up for a success, does not.
 *
 * <p>Giving up is the return of {@link RetryableCall#GIVE_UP}, turned back into the last exception
 * by {@link RetryableCallAdvice}: Spring's interceptor offers no other way to stop retrying.
 */
final class RetryableAttemptAdvice implements MethodInterceptor {

  private final Supplier<@Nullable ApplicationEventPublisher> events;

  RetryableAttemptAdvice(Supplier<@Nullable ApplicationEventPublisher> events) {
    this.events = events;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    RetryableCall call = invocation instanceof ProxyMethodInvocation proxied
        && proxied.getUserAttribute(RetryableCall.ATTRIBUTE) instanceof RetryableCall shared ? shared : null;
    if (call == null) {
      return invocation.proceed();
    }
    RetryBudget budget = call.budget;
    if (call.attempts++ > 0 && call.last != null && budget != null && !budget.tryAcquireRetry()) {
      return RetryableCall.GIVE_UP;
    }
    try {
      return invocation.proceed();
    } catch (Throwable failure) {
      call.last = failure;
      if (Refusal.in(failure) || (budget != null && !budget.hasRoom())) {
        ApplicationEventPublisher publisher = events.get();
        if (publisher != null) {
          publisher.publishEvent(new MethodRetryEvent(call.invocation, failure, false));
        }
        return RetryableCall.GIVE_UP;
      }
      throw failure;
    }
  }
}
