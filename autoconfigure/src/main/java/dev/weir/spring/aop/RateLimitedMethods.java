package dev.weir.spring.aop;

import dev.weir.annotation.RateLimited;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The {@code @RateLimited} methods of the application's classes. A class is inspected once, as a
 * whole, the first time it is asked about (when its bean is proxied, or by the startup check), so
 * that every declaration of it fails the start rather than its first call. Calls then find their
 * {@link GuardedMethod} through a map keyed by the invoked {@link Method}, without allocating.
 */
final class RateLimitedMethods {

  private static final Log logger = LogFactory.getLog(RateLimitedMethods.class);
  private static final Object NONE = new Object();

  /** Guarded methods of each inspected user class, by their most specific method. */
  private final Map<Class<?>, Map<Method, GuardedMethod>> byClass = new ConcurrentHashMap<>();
  /** Answers for (invoked method, runtime class) pairs: a GuardedMethod or NONE. */
  private final Map<MethodClassKey, Object> byCall = new ConcurrentHashMap<>();
  /** The last answer per invoked method, for the common case of one runtime class per method. */
  private final Map<Method, Hit> lastHit = new ConcurrentHashMap<>();
  private final Set<String> resources = ConcurrentHashMap.newKeySet();
  /** The failures of the settle expressions, counted per resource. */
  private final SettleFailures settleFailures = new SettleFailures();
  /** The methods of each resource, for the argument names of its key expressions. */
  private final Map<String, List<Method>> methodsByResource = new ConcurrentHashMap<>();
  /** Whether beans are proxied by subclassing (spring.aop.proxy-target-class, Spring Boot's default). */
  private volatile boolean classProxies = true;

  private record Hit(Class<?> runtimeClass, GuardedMethod guarded) {
  }

  /**
   * Returns whether {@code type} has {@code @RateLimited} methods, resolving all of them.
   *
   * @throws RateLimitedDeclarationException when a declaration of the class is invalid
   */
  void classProxies(boolean classProxies) {
    this.classProxies = classProxies;
  }

  boolean isGuarded(Class<?> type) {
    return !guardedMethods(ClassUtils.getUserClass(type)).isEmpty();
  }

  /** Returns the guarded method that {@code method} invoked on an instance of {@code targetClass} runs. */
  @Nullable GuardedMethod find(Method method, @Nullable Class<?> targetClass) {
    Class<?> userClass = targetClass != null ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
    Map<Method, GuardedMethod> methods = guardedMethods(userClass);
    if (methods.isEmpty()) {
      return null;
    }
    return methods.get(AopUtils.getMostSpecificMethod(method, userClass));
  }

  /** The hot path: the guarded method of a call of {@code method} on {@code target}. */
  @Nullable GuardedMethod forCall(Method method, @Nullable Object target) {
    Class<?> runtimeClass = target != null ? target.getClass() : method.getDeclaringClass();
    Hit hit = lastHit.get(method);
    if (hit != null && hit.runtimeClass == runtimeClass) {
      return hit.guarded;
    }
    Object answer = byCall.computeIfAbsent(new MethodClassKey(method, runtimeClass), key -> {
      GuardedMethod guarded = find(method, runtimeClass);
      return guarded != null ? guarded : NONE;
    });
    if (answer == NONE) {
      return null;
    }
    GuardedMethod guarded = (GuardedMethod) answer;
    lastHit.put(method, new Hit(runtimeClass, guarded));
    return guarded;
  }

  /** Returns the methods of {@code resource} among those inspected so far. */
  List<Method> methods(String resource) {
    return methodsByResource.getOrDefault(resource, List.of());
  }

  /** The failures of the settle expressions of the methods inspected, per resource. */
  SettleFailures settleFailures() {
    return settleFailures;
  }

  /** Returns the resource names of every {@code @RateLimited} method inspected so far. */
  Set<String> resources() {
    return Collections.unmodifiableSet(resources);
  }

  private Map<Method, GuardedMethod> guardedMethods(Class<?> userClass) {
    Map<Method, GuardedMethod> methods = byClass.get(userClass);
    if (methods == null) {
      methods = inspect(userClass, classProxies);
      Map<Method, GuardedMethod> raced = byClass.putIfAbsent(userClass, methods);
      if (raced != null) {
        return raced;
      }
      methods.forEach((method, guarded) -> {
        resources.add(guarded.resource);
        if (guarded.settlement != null) {
          guarded.settlement.countIn(settleFailures.counter(guarded.resource));
        }
        methodsByResource.merge(guarded.resource, List.of(method),
            (a, b) -> java.util.stream.Stream.concat(a.stream(), b.stream()).toList());
      });
    }
    return methods;
  }

  /** As {@link #inspect(Class, boolean)} with class-based proxies, Spring Boot's default. */
  static Map<Method, GuardedMethod> inspect(Class<?> userClass) {
    return inspect(userClass, true);
  }

  /**
   * The guarded methods of {@code userClass}, each resolved; {@code classProxies}: whether its bean
   * is proxied by a subclass (CGLIB) rather than by its interfaces (a JDK proxy).
   *
   * @throws RateLimitedDeclarationException when a declaration cannot be honoured, among them one
   *     no proxy can intercept (see {@link #unreachable})
   */
  static Map<Method, GuardedMethod> inspect(Class<?> userClass, boolean classProxies) {
    if (userClass.isInterface() || Modifier.isAbstract(userClass.getModifiers()) || Proxy.isProxyClass(userClass)
        || !AnnotationUtils.isCandidateClass(userClass, RateLimited.class)) {
      // runtime classes are concrete; an interface or abstract type says too little, and a JDK
      // proxy's target was inspected when the proxy was made
      return Map.of();
    }
    MergedAnnotation<RateLimited> onType =
        MergedAnnotations.from(userClass, SearchStrategy.TYPE_HIERARCHY).get(RateLimited.class);
    RateLimited typeAnnotation = onType.isPresent() ? onType.synthesize() : null;
    if (typeAnnotation != null && !typeAnnotation.value().isEmpty()) {
      throw new RateLimitedDeclarationException(userClass, null,
          "@RateLimited on type " + userClass.getName() + " sets value \"" + typeAnnotation.value()
              + "\", but on a type every public method is a resource of its own, named"
              + " SimpleClassName.methodName.",
          "Remove the value from the type's @RateLimited, or annotate the methods with @RateLimited(\""
              + typeAnnotation.value() + "\") instead.");
    }
    if (KotlinDetector.isKotlinType(userClass)) {
      companionFunctions(userClass);
    }
    Map<Method, GuardedMethod> guarded = new HashMap<>();
    for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
      MergedAnnotation<RateLimited> onMethod =
          MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).get(RateLimited.class);
      int modifiers = method.getModifiers();
      if (onMethod.isPresent()) {
        if (Modifier.isStatic(modifiers)) {
          throw new RateLimitedDeclarationException(userClass, method, "@RateLimited on "
              + HandlerResolver.describe(userClass, method) + " cannot take effect: the method is static, and a"
              + " static method is never called through the bean's proxy, so its calls would not be guarded.",
              "Make it an instance method of the bean and call it through the bean, or remove @RateLimited.");
        }
        if (Modifier.isPrivate(modifiers) && KotlinDetector.isKotlinType(userClass)) {
          throw new RateLimitedDeclarationException(userClass, method, "@RateLimited on "
              + HandlerResolver.describe(userClass, method) + " cannot take effect: the function is private, and a"
              + " private function is never called through the bean's proxy, so its calls would not be guarded.",
              "Make it an open (non-private, non-inline) member function of the bean and call it through the bean,"
                  + " or remove @RateLimited.");
        }
        if (Modifier.isPrivate(modifiers)) {
          logger.warn("@RateLimited on " + HandlerResolver.describe(userClass, method) + " has no effect: "
              + "private methods are not called through the bean's proxy.");
          continue;
        }
        unreachable(userClass, method, classProxies);
        guarded.put(method, HandlerResolver.resolve(userClass, method, onMethod.synthesize(), typeAnnotation));
      } else if (typeAnnotation != null && Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers)
          && !isObjectMethod(method)) {
        unreachable(userClass, method, classProxies);
        guarded.put(method, HandlerResolver.resolve(userClass, method, typeAnnotation, typeAnnotation));
      }
    }
    return guarded.isEmpty() ? Map.of() : Map.copyOf(guarded);
  }

  /*
   * A Kotlin companion object compiles to a nested class whose one instance sits in a static final
   * field of the outer class. Its functions are called on that instance, never on a bean, so no proxy
   * sees them; unless @JvmStatic copies one onto the outer class as a static method (refused above as
   * static), such a function would be silently unguarded. The companion is found by that field.
   */
  private static void companionFunctions(Class<?> userClass) {
    for (Field field : userClass.getDeclaredFields()) {
      Class<?> type = field.getType();
      int modifiers = field.getModifiers();
      if (!Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers) || type.getDeclaringClass() != userClass) {
        continue;
      }
      for (Method method : type.getDeclaredMethods()) {
        if (MergedAnnotations.from(method).isPresent(RateLimited.class)) {
          throw new RateLimitedDeclarationException(userClass, method, "@RateLimited on "
              + HandlerResolver.describe(type, method) + " cannot take effect: it is a function of the companion"
              + " object of " + userClass.getName() + ", which is not a bean, so no proxy sees its calls.",
              "Make it a member function of the bean and call it through the bean, or guard its body with"
                  + " Weir.asyncEntry (or weir-kotlin's guard), or remove @RateLimited.");
        }
      }
    }
  }

  /*
   * A final method, or any method of a final class, cannot be intercepted by a class-based proxy:
   * CGLIB subclasses the bean's class and overrides its methods, and can do neither. Spring Boot
   * proxies by class unless spring.aop.proxy-target-class=false. With that setting a bean whose
   * class implements interfaces gets a JDK proxy of those interfaces, which intercepts the
   * interfaces' methods whatever the class's modifiers: a final method declared by one of them is
   * guarded (when called through the proxy, that is through the interface). Any other final method
   * is not reachable through any proxy: the start stops, naming the reason.
   */
  private static void unreachable(Class<?> userClass, Method method, boolean classProxies) {
    boolean finalClass = Modifier.isFinal(userClass.getModifiers());
    if (!finalClass && !Modifier.isFinal(method.getModifiers())) {
      return;
    }
    if (!classProxies && declaredByAnInterface(userClass, method)) {
      return;
    }
    String what = finalClass ? "its class is final" : "the method is final";
    if (KotlinDetector.isKotlinType(userClass)) {
      // Kotlin classes and functions are final unless open; an inline function is always final, and
      // its body is copied into its callers, so no proxy could see its calls anyway
      what += " (Kotlin classes and functions are final unless declared open or opened by the kotlin-spring"
          + " plugin; an inline function never is, its body is copied into its callers)";
    }
    String why = classProxies
        ? "the bean is proxied by a subclass (spring.aop.proxy-target-class=true, Spring Boot's default), which"
            + " cannot " + (finalClass ? "extend a final class" : "override a final method")
        : "no interface of the class declares the method, so the bean's proxy cannot intercept it";
    throw new RateLimitedDeclarationException(userClass, method, "@RateLimited on "
        + HandlerResolver.describe(userClass, method) + " cannot take effect: " + what + ", and " + why
        + ", so its calls would not be guarded.",
        "Remove final from the " + (finalClass ? "class" : "method") + "; or set spring.aop.proxy-target-class"
            + "=false, declare the method on an interface of the class and use the bean through that interface.");
  }

  private static boolean declaredByAnInterface(Class<?> userClass, Method method) {
    for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(userClass)) {
      if (ReflectionUtils.findMethod(type, method.getName(), method.getParameterTypes()) != null) {
        return true;
      }
    }
    return false;
  }

  private static boolean isObjectMethod(Method method) {
    return ReflectionUtils.findMethod(Object.class, method.getName(), method.getParameterTypes()) != null;
  }
}
