package dev.weir.spring.aop;

import dev.weir.annotation.RateLimited;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;

/**
 * Reflection hints for a native image, for each bean whose class has {@code @RateLimited} methods:
 * at run time {@link RateLimitedMethods} lists the declared methods of the class's hierarchy and
 * of the classes that hold static handlers, and {@link Handler} calls the handlers through method
 * handles made from their {@link Method}s.
 *
 * <p>The methods are found by {@link RateLimitedMethods#inspect}, the very resolution the running
 * application does, so the hints name exactly the methods it will look up. An invalid declaration
 * therefore fails the ahead-of-time processing with the message it would fail the start with.
 *
 * <p>Only the bean's class as the bean definition tells it is seen: a {@code @Bean} method
 * declared to return an interface hides its implementation's {@code @RateLimited} methods (the
 * application then registers their hints itself, or declares the implementation type).
 *
 * <p>Registered in {@code META-INF/spring/aot.factories}.
 */
final class RateLimitedAotProcessor implements BeanRegistrationAotProcessor {

  @Override
  public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
    Class<?> userClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
    Map<Method, GuardedMethod> guarded = RateLimitedMethods.inspect(userClass);
    if (guarded.isEmpty()) {
      return null;
    }
    return (generationContext, code) -> register(generationContext.getRuntimeHints().reflection(), userClass,
        guarded);
  }

  private static void register(ReflectionHints reflection, Class<?> userClass, Map<Method, GuardedMethod> guarded) {
    Set<Class<?>> listed = new LinkedHashSet<>();
    listed.add(userClass);
    listed.addAll(namedHolders(userClass));
    guarded.forEach((method, resolved) -> {
      reflection.registerMethod(method, ExecutableMode.INVOKE);
      listed.add(method.getDeclaringClass());
      listed.addAll(namedHolders(method));
      resolved.handlerMethods().forEach(handler -> {
        reflection.registerMethod(handler, ExecutableMode.INVOKE);
        listed.add(handler.getDeclaringClass());
      });
    });
    // A registered type's methods can be listed and their annotations read at run time; the
    // lookups walk each listed class's superclasses and interfaces.
    for (Class<?> type : listed) {
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        reflection.registerType(c);
        for (Class<?> implemented : ClassUtils.getAllInterfacesForClassAsSet(c)) {
          reflection.registerType(implemented);
        }
      }
    }
  }

  /** The blockHandlerClass and fallbackClass of the {@code @RateLimited} found on {@code element} or above it. */
  private static Set<Class<?>> namedHolders(AnnotatedElement element) {
    MergedAnnotation<RateLimited> annotation =
        MergedAnnotations.from(element, SearchStrategy.TYPE_HIERARCHY).get(RateLimited.class);
    Set<Class<?>> holders = new LinkedHashSet<>();
    if (annotation.isPresent()) {
      holders.addAll(List.of(annotation.getClassArray("blockHandlerClass")));
      holders.addAll(List.of(annotation.getClassArray("fallbackClass")));
    }
    return holders;
  }
}
