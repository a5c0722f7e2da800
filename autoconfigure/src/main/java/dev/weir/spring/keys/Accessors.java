package dev.weir.spring.keys;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Which accessor {@code .name} or {@code .name()} reads on an object of a given class, or why none:
 * the one place that decides what a key expression may call by reflection.
 *
 * <p>Allowed: a public, non-static method without parameters that returns a value, declared by an
 * application's own class (not a platform or framework class, see {@link #isPlatform}) and found on
 * the object's class: for {@code .x} a record's component {@code x}, else {@code getX()}, else
 * {@code isX()} returning a boolean; for {@code .x()} a record's component {@code x}, or a method
 * named {@code getX} or {@code isX} (a boolean). Nothing declared by {@code java.lang.Object}
 * ({@code getClass()}) or any other platform class is ever called, also when an application's class
 * inherits it, and no platform or framework object has members here at all: a method of the
 * application that takes an {@code HttpServletRequest} cannot be walked into. A generated proxy
 * (a class named with {@code $$}, such as Spring's CGLIB proxies, or Hibernate's
 * {@code $HibernateProxy$}) is read through the class it was made from, so the proxy's own
 * plumbing ({@code getCallbacks()}, {@code getHibernateLazyInitializer()}) is not reachable.
 *
 * <p>A class that is not public (a package-private record) is made accessible with
 * {@code setAccessible}, for the application's classes only; when that is refused
 * ({@code InaccessibleObjectException}, {@code SecurityException}) the class has no accessor here.
 */
final class Accessors {

  /** Classes in these packages (and arrays of them, and primitives) are the platform's or a framework's. */
  static final List<String> PLATFORM_PACKAGES = List.of("java.", "javax.", "jakarta.", "jdk.", "sun.", "com.sun.",
      "org.springframework.", "org.apache.", "io.netty.", "reactor.", "io.micrometer.", "org.eclipse.",
      "io.undertow.", "tools.jackson.", "com.fasterxml.", "kotlin.", "dev.weir.");

  private static final Object[] NO_ARGUMENTS = new Object[0];

  private Accessors() {
  }

  /** Whether {@code type} belongs to the platform or a framework: its objects have no members in a key. */
  static boolean isPlatform(Class<?> type) {
    Class<?> element = type;
    while (element.isArray()) {
      element = element.getComponentType();
    }
    if (element.isPrimitive()) {
      return true;
    }
    String name = element.getName();
    for (String prefix : PLATFORM_PACKAGES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code type} is a generated proxy or a lambda, read through the class it extends. */
  private static boolean isGenerated(Class<?> type) {
    String name = type.getName();
    return name.contains("$$") || name.contains("$HibernateProxy$") || type.isSynthetic() || type.isHidden();
  }

  /**
   * Finds what {@code .name} ({@code call} false) or {@code .name()} ({@code call} true) reads on an
   * object whose class is {@code type}.
   */
  static Access resolve(Class<?> type, String name, boolean call) {
    Class<?> read = type;
    while (read != null && isGenerated(read)) {
      read = read.getSuperclass();
    }
    if (read == null || isPlatform(read)) {
      Class<?> shown = read == null ? type : read;
      return new Refusal("a " + shown.getName() + " is a platform or framework object: a key reads no member of it"
          + " (only String's methods, an array's length and indexes of lists and maps)");
    }
    try {
      for (String candidate : candidates(read, name, call)) {
        Method method = publicMethod(read, candidate);
        if (method == null) {
          continue;
        }
        if (isPlatform(method.getDeclaringClass())) {
          return new Refusal(candidate + "() of " + read.getSimpleName() + " is declared by "
              + method.getDeclaringClass().getName() + ": a key calls no method of a platform or framework class");
        }
        boolean component = candidate.equals(name) && isRecordComponent(read, name);
        Class<?> returned = method.getReturnType();
        if (!component && candidate.startsWith("is") && returned != boolean.class && returned != Boolean.class) {
          continue; // isX is an accessor of a boolean only
        }
        if (!makeAccessible(method)) {
          return new Refusal(candidate + "() of " + read.getName() + " is not accessible to Weir");
        }
        return new Getter(method);
      }
    } catch (LinkageError | SecurityException unreadable) {
      return new Refusal("the methods of " + read.getName() + " cannot be read: " + unreadable);
    }
    return new Refusal(read.getSimpleName() + " has no accessor '" + name + "'" + (call ? "()" : "") + ": "
        + (call ? "a call reads a record's component or a method getX() or isX() without arguments"
            : ".x reads a record's component x, getX() or isX()"));
  }

  /** The methods that {@code .name} or {@code .name()} may mean, in the order they are tried. */
  private static List<String> candidates(Class<?> type, String name, boolean call) {
    boolean component = isRecordComponent(type, name);
    if (call) {
      if (component) {
        return List.of(name);
      }
      boolean getter = name.length() > 3 && name.startsWith("get") || name.length() > 2 && name.startsWith("is");
      return getter ? List.of(name) : List.of();
    }
    String capitalized = name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
    return component ? List.of(name, "get" + capitalized, "is" + capitalized)
        : List.of("get" + capitalized, "is" + capitalized);
  }

  private static boolean isRecordComponent(Class<?> type, String name) {
    if (!type.isRecord()) {
      return false;
    }
    for (RecordComponent component : type.getRecordComponents()) {
      if (component.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The public instance method {@code name()} of {@code type} that returns a value, or null. */
  private static @Nullable Method publicMethod(Class<?> type, String name) {
    Method method;
    try {
      method = type.getMethod(name);
    } catch (NoSuchMethodException absent) {
      return null;
    }
    return Modifier.isStatic(method.getModifiers()) || method.getReturnType() == void.class ? null : method;
  }

  /** Whether {@code method} can be called from here: made accessible when its class is not public. */
  private static boolean makeAccessible(Method method) {
    try {
      return method.trySetAccessible() || Modifier.isPublic(method.getDeclaringClass().getModifiers());
    } catch (SecurityException refused) {
      return false;
    }
  }

  /** What a member reads on objects of one class. */
  sealed interface Access {

    /** Reads the member of {@code receiver}, an object of the class it was resolved for. */
    @Nullable Object read(Object receiver);

    /** The type it returns (declared), or null when it refuses. */
    @Nullable Class<?> type();
  }

  /** A permitted accessor. */
  record Getter(Method method) implements Access {

    @Override
    public @Nullable Object read(Object receiver) {
      try {
        return method.invoke(receiver, NO_ARGUMENTS); // no varargs array per call
      } catch (InvocationTargetException failed) {
        Throwable cause = failed.getCause() == null ? failed : failed.getCause();
        throw new KeyFailure(method.getDeclaringClass().getSimpleName() + "." + method.getName() + "() threw "
            + cause, cause);
      } catch (IllegalAccessException | IllegalArgumentException refused) {
        throw new KeyFailure(method + " cannot be called: " + refused);
      }
    }

    @Override
    public Class<?> type() {
      return method.getReturnType();
    }
  }

  /** No accessor: the reason. */
  record Refusal(String reason) implements Access {

    @Override
    public @Nullable Object read(Object receiver) {
      throw new KeyFailure(reason);
    }

    @Override
    public @Nullable Class<?> type() {
      return null;
    }
  }
}
