package dev.weir.spring.aop;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.web.CriticalityClaim;
import java.util.Arrays;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Guards each call of a {@code @RateLimited} method: enters its resource, runs it, and routes
 * refusals and failures to the handlers resolved at startup. Each method's resource is resolved
 * once, on its first call, into the engine's {@link dev.weir.Resource} handle, which its calls then
 * use. Exceptions leave as they came, never wrapped, so checked ones reach the caller as declared. A method whose work completes after it
 * returns is guarded until then, by {@link StageCalls} or {@link ReactorCalls}; so is a Kotlin suspend
 * function, whose call Spring's proxy runs as a {@code Mono} that it awaits in the caller's coroutine. Each refusal is
 * told to the {@link RefusalObserver} before any handler answers it (with Micrometer, an event of
 * the current observation); nothing is told of admitted calls. A call's criticality is the
 * annotation's, lowered by the claim of the request the thread serves ({@link CriticalityClaim});
 * a context that gives one wins over both (the engine's rule).
 */
final class RateLimitedInterceptor implements MethodInterceptor {

  private final RateLimitedMethods methods;
  private final Supplier<Weir> weir;
  private final Supplier<RefusalObserver> observer;

  RateLimitedInterceptor(RateLimitedMethods methods, Supplier<Weir> weir, Supplier<RefusalObserver> observer) {
    this.methods = methods;
    this.weir = weir;
    this.observer = observer;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    GuardedMethod guarded = methods.forCall(invocation.getMethod(), target);
    if (guarded == null) {
      return invocation.proceed();
    }
    Object[] args = invocation.getArguments();
    if (guarded.returns == ReturnKind.SUSPEND) {
      // the continuation is the proxy's, not an argument of the call: keys and handlers never see it
      args = Arrays.copyOf(args, args.length - 1);
    }
    GuardedMethod.Bound bound = guarded.bind(weir.get(), observer);
    if (guarded.returns != ReturnKind.VALUE) {
      return guarded.returns == ReturnKind.STAGE
          ? StageCalls.invoke(bound.resource, observer, guarded, invocation, target, args)
          : ReactorCalls.invoke(bound, guarded, invocation, target, args);
    }
    Entry entry;
    try {
      entry = bound.resource.entry(guarded.entryType, guarded.permits, CriticalityClaim.bound(guarded.criticality), args);
    } catch (BlockException block) {
      observer.get().refused(block);
      return guarded.blocked(target, args, block);
    }
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable failure) {
      if (guarded.traces(failure)) {
        entry.recordError(failure);
      }
      entry.close();
      return guarded.failed(target, args, failure);
    }
    Settlement settlement = guarded.settlement;
    if (settlement != null) {
      settlement.settle(entry, args, result);
    }
    entry.close();
    return result;
  }
}
