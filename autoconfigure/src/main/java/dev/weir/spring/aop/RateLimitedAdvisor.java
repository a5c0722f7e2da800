package dev.weir.spring.aop;

import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

/**
 * The Spring AOP advisor that applies {@link dev.weir.annotation.RateLimited} to beans: any
 * auto-proxy creator in the context (Spring Boot's, or the infrastructure one that the Weir
 * auto-configuration registers when AspectJ is absent) wraps the beans that have such methods.
 *
 * <p>Every {@code @RateLimited} declaration of a class is resolved the first time the class is
 * matched, when its bean is created; an invalid one fails the bean's creation with a
 * {@link RateLimitedDeclarationException}. Calls then run without reflective lookups.
 *
 * <p>The advisor orders itself at {@link #DEFAULT_ORDER}: outside {@code @Transactional} and
 * {@code @Cacheable} (both at {@link Ordered#LOWEST_PRECEDENCE}), so that a refused call opens no
 * transaction. A nested refusal therefore crosses the method's transaction boundary first, and
 * Spring rolls back the method's work before a handler answers. When that left a transaction the
 * method joined unable to commit, no handler answers: the exception goes on to the transaction's
 * owner rather than a commit failing later with {@code UnexpectedRollbackException}.
 */
public final class RateLimitedAdvisor extends AbstractPointcutAdvisor {

  private static final long serialVersionUID = 1L;

  /** The default order: just before Spring's own transaction and cache advisors. */
  public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  private final transient RateLimitedMethods methods = new RateLimitedMethods();
  private final transient RateLimitedInterceptor interceptor;
  private final transient Pointcut pointcut = new RateLimitedPointcut(methods);

  /**
   * Creates the advisor.
   *
   * @param weir supplies the engine; asked on the first guarded call, so that creating the advisor
   *     (early, with the post-processors) does not create the engine
   */
  public RateLimitedAdvisor(Supplier<Weir> weir) {
    this(weir, RefusalObserver::none);
  }

  /**
   * Creates the advisor.
   *
   * @param weir supplies the engine; asked on the first guarded call, so that creating the advisor
   *     (early, with the post-processors) does not create the engine
   * @param observer supplies the observer told of each refusal of a guarded method; asked on a
   *     refusal only (an admitted call never asks)
   */
  public RateLimitedAdvisor(Supplier<Weir> weir, Supplier<RefusalObserver> observer) {
    this.interceptor = new RateLimitedInterceptor(methods, weir, observer);
    setOrder(DEFAULT_ORDER);
  }

  /**
   * Tells the advisor how beans are proxied: by subclass ({@code true}, Spring Boot's default,
   * {@code spring.aop.proxy-target-class}) or, where the class has interfaces, by those interfaces.
   * A {@code final} guarded method (or one of a {@code final} class) stops the start unless beans are
   * proxied by interfaces and an interface declares it. Call before the first class is inspected.
   *
   * @param classProxies whether beans are proxied by subclass
   * @return this advisor
   */
  public RateLimitedAdvisor classProxies(boolean classProxies) {
    methods.classProxies(classProxies);
    return this;
  }

  /**
   * Inspects {@code type} now: returns whether it has {@code @RateLimited} methods.
   *
   * @throws RateLimitedDeclarationException when one of its declarations is invalid
   */
  public boolean inspect(Class<?> type) {
    return methods.isGuarded(type);
  }

  /** Returns the {@code @RateLimited} methods named {@code resource}, of every class inspected so far. */
  public List<Method> methods(String resource) {
    return methods.methods(resource);
  }

  /** Returns the resource names of the {@code @RateLimited} methods of every class inspected so far. */
  public Set<String> resources() {
    return methods.resources();
  }

  /**
   * Returns the count, per resource, of the calls whose {@code settle} expression gave no cost (they
   * kept their estimate), for the meter {@code weir.settle.failures}.
   */
  public SettleFailures settleFailures() {
    return methods.settleFailures();
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  @Override
  public Advice getAdvice() {
    return interceptor;
  }

  /** Matches the classes with {@code @RateLimited} methods, and those methods. */
  private static final class RateLimitedPointcut extends StaticMethodMatcherPointcut {

    private final RateLimitedMethods methods;

    RateLimitedPointcut(RateLimitedMethods methods) {
      this.methods = methods;
      setClassFilter(methods::isGuarded);
    }

    @Override
    public boolean matches(Method method, @Nullable Class<?> targetClass) {
      return methods.find(method, targetClass) != null;
    }
  }
}
