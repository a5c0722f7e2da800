package dev.weir.spring.aop;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * How a guarded method's work completes, read from its declared return type: when it returns
 * ({@link #VALUE}), when its stage completes ({@link #STAGE}), or per subscription of its publisher
 * ({@link #MONO}, {@link #FLUX}), when its Kotlin coroutine completes ({@link #SUSPEND}), or per
 * collection of its Kotlin {@code Flow} ({@link #FLOW}).
 */
enum ReturnKind {
  VALUE,
  STAGE,
  MONO,
  FLUX,
  /**
   * A Kotlin {@code suspend} function. Spring's AOP runs it through its Reactor bridge: the
   * interceptor's {@code proceed()} returns a {@code Mono} (a {@code Flux} for a suspend function
   * returning a {@code Flow}) that the proxy awaits in the caller's coroutine, so it is guarded per
   * subscription like a {@code Mono}, and the continuation is not one of the call's arguments.
   */
  SUSPEND,
  /** A method returning a Kotlin {@code Flow}: guarded per collection, like a {@code Flux}. */
  FLOW;

  private static final String MONO_TYPE = "reactor.core.publisher.Mono";
  private static final String FLUX_TYPE = "reactor.core.publisher.Flux";
  private static final String PUBLISHER_TYPE = "org.reactivestreams.Publisher";
  static final String KOTLIN_FLOW_TYPE = "kotlinx.coroutines.flow.Flow";
  private static final String COROUTINES_REACTOR_TYPE = "kotlinx.coroutines.reactor.MonoKt";
  private static final String KOTLIN_REFLECT_TYPE = "kotlin.reflect.full.KClasses";

  /**
   * The kind of {@code method}, or a reason why it cannot be guarded until its work completes
   * (thrown as a {@link RateLimitedDeclarationException} by the caller).
   */
  static ReturnKind of(Method method) {
    if (isSuspending(method)) {
      return SUSPEND;
    }
    Class<?> type = method.getReturnType();
    if (type == CompletionStage.class || type == CompletableFuture.class) {
      return STAGE;
    }
    String name = type.getName();
    if (name.equals(MONO_TYPE)) {
      return MONO;
    }
    if (name.equals(FLUX_TYPE) || name.equals(PUBLISHER_TYPE)) {
      return FLUX;
    }
    if (name.equals(KOTLIN_FLOW_TYPE)) {
      return FLOW;
    }
    return VALUE;
  }

  /** Why {@code method} cannot be guarded as declared, or null when it can. */
  static @Nullable String unsupported(Method method) {
    return unsupported(method, method.getDeclaringClass().getClassLoader());
  }

  /** Why {@code method} cannot be guarded with the libraries {@code loader} finds, or null when it can. */
  static @Nullable String unsupported(Method method, @Nullable ClassLoader loader) {
    Class<?> type = method.getReturnType();
    if (isSuspending(method) && !ClassUtils.isPresent(COROUTINES_REACTOR_TYPE, loader)) {
      return "is a Kotlin suspend function, and Spring runs a guarded suspend function through its Reactor bridge,"
          + " which needs org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the classpath";
    }
    if (isSuspending(method) && !ClassUtils.isPresent(KOTLIN_REFLECT_TYPE, loader)) {
      // Spring's bridge (CoroutinesUtils) finds the Kotlin function of the method through kotlin-reflect:
      // without it the first call would fail, after the start said nothing
      return "is a Kotlin suspend function, and Spring's bridge between a proxy and a suspend function reads it"
          + " through Kotlin reflection, which needs org.jetbrains.kotlin:kotlin-reflect on the classpath";
    }
    if (type.getName().equals(KOTLIN_FLOW_TYPE) && !ClassUtils.isPresent(COROUTINES_REACTOR_TYPE, loader)) {
      return "returns a Kotlin Flow, and guarding each collection needs"
          + " org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the classpath";
    }
    if (CompletionStage.class.isAssignableFrom(type) && of(method) != STAGE) {
      return "returns " + type.getName() + ", a CompletionStage that Weir cannot stand in for; declare the"
          + " return type CompletionStage or CompletableFuture";
    }
    ReturnKind kind = of(method);
    if ((kind == MONO || kind == FLUX || kind == SUSPEND || kind == FLOW)
        && !ClassUtils.isPresent(MONO_TYPE, loader)) {
      return "returns " + type.getName() + ", and guarding a publisher per subscription needs Reactor"
          + " (io.projectreactor:reactor-core) on the classpath";
    }
    return null;
  }

  /** Whether the method's work completes after it returns. */
  boolean isAsync() {
    return this != VALUE;
  }

  /**
   * The type of the plain values a handler of an asynchronous {@code method} may return instead
   * of the method's own type: the element type, {@code Object} when it is not known.
   */
  static Class<?> elementType(Method method, Class<?> beanClass) {
    if (isSuspending(method)) {
      return suspendResult(method, beanClass);
    }
    Class<?> element = ResolvableType.forMethodReturnType(method, beanClass).getGeneric(0).resolve();
    return element != null ? element : Object.class;
  }

  /** Whether {@code method} is a Kotlin suspend function (read without Kotlin on the classpath). */
  static boolean isSuspending(Method method) {
    return KotlinDetector.isSuspendingFunction(method);
  }

  /**
   * The declared result of a suspend function: a suspend function {@code f(a): R} compiles to
   * {@code Object f(A, Continuation<? super R>)}, so {@code R} is the lower bound of its last
   * parameter's type argument; {@code Object} when it cannot be read.
   */
  static Class<?> suspendResult(Method method, Class<?> beanClass) {
    Type[] parameters = method.getGenericParameterTypes();
    if (parameters.length != 0 && parameters[parameters.length - 1] instanceof ParameterizedType continuation) {
      Type argument = continuation.getActualTypeArguments()[0];
      if (argument instanceof WildcardType wildcard && wildcard.getLowerBounds().length == 1) {
        argument = wildcard.getLowerBounds()[0];
      }
      Class<?> result = ResolvableType.forType(argument, ResolvableType.forClass(beanClass)).resolve();
      if (result != null) {
        return result;
      }
    }
    return Object.class;
  }

  /** The parameter types of {@code method} as its callers see them: without a suspend function's continuation. */
  static Class<?>[] callParameters(Method method) {
    Class<?>[] parameters = method.getParameterTypes();
    return isSuspending(method) ? Arrays.copyOf(parameters, parameters.length - 1) : parameters;
  }
}
