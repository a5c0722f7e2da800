package dev.weir.spring.aop;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.springframework.core.CoroutinesUtils;
import org.springframework.util.ReflectionUtils;

/**
 * One resolved handler method, callable as {@code (target, args, throwable) -> result} through a
 * method handle built once at startup. It applies to throwables of {@link #appliesTo}.
 */
final class Handler {

  private static final MethodType INVOKER_TYPE =
      MethodType.methodType(Object.class, Object.class, Object[].class, Throwable.class);

  final Class<? extends Throwable> appliesTo;
  private final @Nullable MethodHandle invoker;
  private final Method method;
  /** A suspend handler: how many of the call's arguments it takes, and whether it takes the throwable. */
  private final int argCount;
  private final boolean takesThrowable;

  private Handler(Class<? extends Throwable> appliesTo, @Nullable MethodHandle invoker, Method method, int argCount,
      boolean takesThrowable) {
    this.appliesTo = appliesTo;
    this.invoker = invoker;
    this.method = method;
    this.argCount = argCount;
    this.takesThrowable = takesThrowable;
  }

  /**
   * A Kotlin suspend handler, of a suspend function: invoked through Spring's coroutine bridge, it
   * answers with a {@code Mono} of its result, which the guarded call's publisher then serves (see
   * {@link ReactorCalls#handled}). Its parameters are counted without the continuation.
   */
  static Handler suspending(Method method, int argCount, boolean takesArgs, boolean takesThrowable,
      Class<? extends Throwable> appliesTo) {
    ReflectionUtils.makeAccessible(method);
    return new Handler(appliesTo, null, method, takesArgs ? argCount : 0, takesThrowable);
  }

  /**
   * Adapts {@code method} to the invoker shape.
   *
   * @param argCount how many arguments of the guarded call it takes first (0 for none)
   * @param takesArgs whether it takes the guarded call's arguments at all
   * @param takesThrowable whether its last parameter is the throwable
   * @param appliesTo the throwables it handles
   */
  static Handler of(Method method, int argCount, boolean takesArgs, boolean takesThrowable,
      Class<? extends Throwable> appliesTo) {
    ReflectionUtils.makeAccessible(method);
    MethodHandle handle;
    try {
      handle = MethodHandles.lookup().unreflect(method);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Cannot access handler " + method, e);
    }
    if (Modifier.isStatic(method.getModifiers())) {
      handle = MethodHandles.dropArguments(handle, 0, Object.class);
    }
    if (!takesThrowable) {
      handle = MethodHandles.dropArguments(handle, handle.type().parameterCount(), Throwable.class);
    }
    handle = takesArgs ? handle.asSpreader(1, Object[].class, argCount)
        : MethodHandles.dropArguments(handle, 1, Object[].class);
    return new Handler(appliesTo, handle.asType(INVOKER_TYPE), method, argCount, takesThrowable);
  }

  /** The handler method, for the native-image hints of {@link RateLimitedAotProcessor}. */
  Method method() {
    return method;
  }

  boolean appliesTo(Throwable throwable) {
    return appliesTo.isInstance(throwable);
  }

  @Nullable Object invoke(@Nullable Object target, Object[] args, Throwable throwable) throws Throwable {
    MethodHandle handle = invoker;
    if (handle == null) {
      Object[] handlerArgs = Arrays.copyOf(args, argCount + (takesThrowable ? 1 : 0));
      if (takesThrowable) {
        handlerArgs[argCount] = throwable;
      }
      return CoroutinesUtils.invokeSuspendingFunction(method, target, handlerArgs);
    }
    return (Object) handle.invokeExact(target, args, throwable);
  }

  @Override
  public String toString() {
    return method.toGenericString();
  }
}
