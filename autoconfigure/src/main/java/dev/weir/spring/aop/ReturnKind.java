package dev.weir.spring.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * How a guarded method's work completes, read from its declared return type: when it returns
 * ({@link #VALUE}), when its stage completes ({@link #STAGE}), or per subscription of its publisher
 * ({@link #MONO}, {@link #FLUX}).
 */
enum ReturnKind {
  VALUE,
  STAGE,
  MONO,
  FLUX;

  private static final String MONO_TYPE = "reactor.core.publisher.Mono";
  private static final String FLUX_TYPE = "reactor.core.publisher.Flux";
  private static final String PUBLISHER_TYPE = "org.reactivestreams.Publisher";
  private static final String KOTLIN_FLOW_TYPE = "kotlinx.coroutines.flow.Flow";

  /**
   * The kind of {@code method}, or a reason why it cannot be guarded until its work completes
   * (thrown as a {@link RateLimitedDeclarationException} by the caller).
   */
  static ReturnKind of(Method method) {
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
    return VALUE;
  }

  /** Why {@code method} cannot be guarded as declared, or null when it can. */
  static @Nullable String unsupported(Method method) {
    Class<?> type = method.getReturnType();
    if (KotlinDetector.isSuspendingFunction(method)) {
      return "is a Kotlin suspend function: its work completes when the coroutine resumes for the last time,"
          + " which a method interceptor does not see, so it would be guarded only until its first suspension";
    }
    if (type.getName().equals(KOTLIN_FLOW_TYPE)) {
      return "returns a Kotlin Flow, which is collected after the method returns; Weir guards Mono, Flux and"
          + " CompletionStage results until their work completes, not Flow";
    }
    if (CompletionStage.class.isAssignableFrom(type) && of(method) != STAGE) {
      return "returns " + type.getName() + ", a CompletionStage that Weir cannot stand in for; declare the"
          + " return type CompletionStage or CompletableFuture";
    }
    ReturnKind kind = of(method);
    if ((kind == MONO || kind == FLUX)
        && !ClassUtils.isPresent(MONO_TYPE, method.getDeclaringClass().getClassLoader())) {
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
    Class<?> element = ResolvableType.forMethodReturnType(method, beanClass).getGeneric(0).resolve();
    return element != null ? element : Object.class;
  }
}
