package dev.weir.spring.retry;

import java.lang.reflect.Method;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.resilience.retry.AbstractRetryInterceptor;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Puts Spring Framework's retries under Weir's {@link RetryBudgets}:
 * <ul>
 *   <li>every {@link RetryTemplate} bean, under the budget named by its bean name
 *       ({@link RetryBudgets#apply});
 *   <li>every bean whose proxy has Spring's {@code @Retryable} interceptor (from
 *       {@code @EnableResilientMethods}): two advices are added around that interceptor, with its
 *       pointcut, so that each {@code @Retryable} method's retries count against the budget of the
 *       method ({@code SimpleClassName.methodName}) and a Weir refusal ends the call at once.
 * </ul>
 *
 * <p>Spring's {@code @Retryable} interceptor is added to a bean's proxy by an ordered post-processor;
 * this one is not ordered, so it runs after that one and finds the interceptor in place. The advices
 * sit directly around it whatever other advisors the proxy has: the outer one at its index, the inner
 * one just after it, so that no other advice (a transaction, {@code @RateLimited}) sees an attempt
 * that gave up. A frozen proxy is left alone.
 *
 * <p>Methods returning a reactive type ({@code Mono}, {@code Flux}) are retried by Reactor inside the
 * returned publisher, not by calling the method again: they are not budgeted.
 */
public final class RetryBudgetPostProcessor implements BeanPostProcessor, ApplicationEventPublisherAware {

  private static final boolean REACTIVE = ClassUtils.isPresent("org.reactivestreams.Publisher",
      RetryBudgetPostProcessor.class.getClassLoader());

  private final Supplier<RetryBudgets> budgets;
  private @Nullable ApplicationEventPublisher events;

  /**
   * Creates the post-processor.
   *
   * @param budgets the budgets, asked for when first needed (so that the engine they use is not made
   *     while post-processors are being registered)
   */
  public RetryBudgetPostProcessor(Supplier<RetryBudgets> budgets) {
    this.budgets = SingletonSupplier.of(budgets);
  }

  @Override
  public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
    this.events = applicationEventPublisher;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof RetryTemplate template) {
      budgets.get().apply(beanName, template);
    } else if (bean instanceof Advised advised && !advised.isFrozen()) {
      surroundRetryInterceptor(advised);
    }
    return bean;
  }

  private void surroundRetryInterceptor(Advised advised) {
    Advisor[] advisors = advised.getAdvisors();
    for (Advisor advisor : advisors) {
      if (advisor.getAdvice() instanceof RetryableCallAdvice) {
        return;
      }
    }
    for (int index = 0; index < advisors.length; index++) {
      if (advisors[index] instanceof PointcutAdvisor retry && retry.getAdvice() instanceof AbstractRetryInterceptor) {
        Supplier<@Nullable ApplicationEventPublisher> publisher = () -> events;
        advised.addAdvisor(index + 1, new DefaultPointcutAdvisor(retry.getPointcut(), new RetryableAttemptAdvice(publisher)));
        advised.addAdvisor(index, new DefaultPointcutAdvisor(retry.getPointcut(), new RetryableCallAdvice(budgets, publisher)));
        return;
      }
    }
  }

  /** Whether Spring retries {@code method} through Reactor (as its retry interceptor decides it). */
  static boolean isReactive(Method method) {
    Class<?> type = method.getReturnType();
    return REACTIVE && !Future.class.isAssignableFrom(type)
        && ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
  }
}
