package dev.weir.spring.retry;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.MethodClassKey;
import org.springframework.core.retry.RetryException;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.util.ClassUtils;

/**
 * The advice just outside Spring's {@code @Retryable} interceptor: it counts the call's first
 * attempt in the method's budget, opens the {@link RetryableCall} its attempts share, and, when an
 * attempt gave up ({@link RetryableCall#GIVE_UP}), throws the call's last exception, as Spring
 * would have after its last retry, and publishes the {@link MethodRetryEvent} of the aborted retry
 * (its failure a {@link RetryException} caused by the last exception, as Spring's).
 */
final class RetryableCallAdvice implements MethodInterceptor {

  private final Supplier<RetryBudgets> budgets;
  private final Supplier<@Nullable ApplicationEventPublisher> events;
  private final Map<MethodClassKey, String> resources = new ConcurrentHashMap<>();

  RetryableCallAdvice(Supplier<RetryBudgets> budgets, Supplier<@Nullable ApplicationEventPublisher> events) {
    this.budgets = budgets;
    this.events = events;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    if (!(invocation instanceof ProxyMethodInvocation proxied) || RetryBudgetPostProcessor.isReactive(invocation.getMethod())) {
      return invocation.proceed();
    }
    RetryBudget budget = budgets.get().budget(resource(invocation));
    RetryableCall call = new RetryableCall(invocation, budget);
    proxied.setUserAttribute(RetryableCall.ATTRIBUTE, call);
    if (budget != null) {
      budget.recordFirstAttempt();
    }
    Object result = proxied.proceed();
    if (result != RetryableCall.GIVE_UP) {
      return result;
    }
    Throwable last = call.last;
    if (last == null) {
      throw new IllegalStateException("An attempt of " + invocation.getMethod() + " gave up without a failure");
    }
    ApplicationEventPublisher publisher = events.get();
    if (publisher != null) {
      String reason = Refusal.in(last) ? "a Weir refusal is not retried" : "no room in its retry budget";
      publisher.publishEvent(new MethodRetryEvent(invocation,
          new RetryException("Retry of '" + resource(invocation) + "' not made: " + reason, last), true));
    }
    throw last;
  }

  /** The method's resource: {@code SimpleClassName.methodName}, as {@code @RateLimited} names it. */
  private String resource(MethodInvocation invocation) {
    Method method = invocation.getMethod();
    Object target = invocation.getThis();
    Class<?> type = ClassUtils.getUserClass(target != null ? target.getClass() : method.getDeclaringClass());
    return resources.computeIfAbsent(new MethodClassKey(method, type),
        key -> type.getSimpleName() + "." + method.getName());
  }
}
