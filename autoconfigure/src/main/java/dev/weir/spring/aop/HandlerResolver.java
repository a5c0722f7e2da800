package dev.weir.spring.aop;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.keys.KeyArguments;
import dev.weir.spring.keys.KeyLanguage;
import dev.weir.spring.properties.LogText;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Resolves the handlers of one {@code @RateLimited} method by the signature rules of
 * {@link RateLimited}, or explains, in a {@link RateLimitedDeclarationException}, why it cannot.
 */
final class HandlerResolver {

  private static final Handler[] NONE = new Handler[0];
  private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

  /** The three kinds of handler and their signature rules. */
  private enum Kind {
    BLOCK_HANDLER("blockHandler", true, true, BlockException.class),
    FALLBACK("fallback", true, false, Throwable.class),
    DEFAULT_FALLBACK("defaultFallback", false, false, Throwable.class);

    final String attribute;
    final boolean takesArgs;
    final boolean throwableRequired;
    final Class<? extends Throwable> bound;

    Kind(String attribute, boolean takesArgs, boolean throwableRequired, Class<? extends Throwable> bound) {
      this.attribute = attribute;
      this.takesArgs = takesArgs;
      this.throwableRequired = throwableRequired;
      this.bound = bound;
    }
  }

  private final Class<?> beanClass;
  private final Method method;
  private final RateLimited annotation;
  private final @Nullable RateLimited typeAnnotation;
  private final ReturnKind returns;

  private HandlerResolver(Class<?> beanClass, Method method, RateLimited annotation,
      @Nullable RateLimited typeAnnotation) {
    this.beanClass = beanClass;
    this.method = method;
    this.annotation = annotation;
    this.typeAnnotation = typeAnnotation;
    this.returns = ReturnKind.of(method);
  }

  /**
   * Resolves {@code method} of {@code beanClass}, guarded by {@code annotation} (its own, or the
   * type's); {@code typeAnnotation} is the type's, if any, for an inherited defaultFallback.
   *
   * @throws RateLimitedDeclarationException when a handler is missing or mismatched
   */
  static GuardedMethod resolve(Class<?> beanClass, Method method, RateLimited annotation,
      @Nullable RateLimited typeAnnotation) {
    return new HandlerResolver(beanClass, method, annotation, typeAnnotation).resolve();
  }

  /** Returns the default resource name of {@code method} on {@code beanClass}. */
  static String defaultResource(Class<?> beanClass, Method method) {
    String simpleName = beanClass.getSimpleName();
    if (simpleName.isEmpty()) {
      simpleName = ClassUtils.getShortName(beanClass);
    }
    return simpleName + "." + method.getName();
  }

  private GuardedMethod resolve() {
    String resource = annotation.value().isEmpty() ? defaultResource(beanClass, method) : annotation.value();
    if (annotation.permits() < 1) {
      throw new RateLimitedDeclarationException(beanClass, method,
          "@RateLimited on " + describe(beanClass, method) + " sets permits = " + annotation.permits()
              + "; a call takes at least 1 permit.",
          "Set permits to 1 or more (the permits one call of the method weighs).");
    }
    String unsupported = ReturnKind.unsupported(method);
    if (unsupported != null) {
      throw new RateLimitedDeclarationException(beanClass, method,
          "@RateLimited on " + describe(beanClass, method) + " cannot be guarded: the method " + unsupported + ".",
          "Return a Mono, a Flux or a CompletionStage, or guard the work with Weir.asyncEntry where it"
              + " completes.");
    }
    Handler[] blockHandlers = handlers(Kind.BLOCK_HANDLER, annotation.blockHandler(),
        holder(annotation.blockHandlerClass(), "blockHandlerClass"));
    Handler[] fallbacks = handlers(Kind.FALLBACK, annotation.fallback(),
        holder(annotation.fallbackClass(), "fallbackClass"));
    RateLimited defaults = annotation;
    if (annotation.defaultFallback().isEmpty() && typeAnnotation != null) {
      defaults = typeAnnotation;
    }
    Handler[] defaultFallbacks = handlers(Kind.DEFAULT_FALLBACK, defaults.defaultFallback(),
        holder(defaults.fallbackClass(), "fallbackClass"));
    return new GuardedMethod(resource, annotation.entryType(), annotation.permits(), annotation.criticality(), returns,
        annotation.exceptionsToTrace(),
        annotation.exceptionsToIgnore(), blockHandlers, fallbacks, defaultFallbacks, settlement(resource));
  }

  /**
   * The compiled {@code settle} expression, or null when there is none: over the method's arguments,
   * named as for keys, and {@code #result}, declared as the method's return type, or for an
   * asynchronous method as its element type; none for {@code void} and {@code Void}.
   *
   * @throws RateLimitedDeclarationException when the expression cannot apply to the method
   */
  private @Nullable Settlement settlement(String resource) {
    String expression = annotation.settle();
    if (expression.isEmpty()) {
      return null;
    }
    if (returns == ReturnKind.FLOW) {
      throw new RateLimitedDeclarationException(beanClass, method,
          "@RateLimited on " + describe(beanClass, method) + " sets settle = \"" + LogText.of(expression)
              + "\", but it returns a Kotlin Flow, which has no result to read a cost from: each collection"
              + " is guarded, and what it emits is the collector's, not the call's.",
          "Remove settle, or return the cost-bearing value from a suspend function (settle then reads #result),"
              + " or settle inside the flow with weir-kotlin's guard(settle = ...) (see docs/kotlin.md).");
    }
    Class<?> result = returns.isAsync() ? ReturnKind.elementType(method, beanClass) : method.getReturnType();
    if (result == void.class || result == Void.class || result.getName().equals("kotlin.Unit")) {
      result = null;
    }
    // a suspend function's continuation is not an argument: the expression sees its own parameters
    Class<?>[] parameters = ReturnKind.callParameters(method);
    String[] found = PARAMETER_NAMES.getParameterNames(method);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < parameters.length; i++) {
      names.add(found != null && found.length > i ? found[i] : "p" + i);
    }
    try {
      return new Settlement(KeyLanguage.compileCost(resource, expression,
          new KeyArguments(names, List.of(parameters)), result), expression, result != null);
    } catch (IllegalArgumentException invalid) {
      throw new RateLimitedDeclarationException(beanClass, method,
          "@RateLimited on " + describe(beanClass, method) + " sets settle = \"" + LogText.of(expression)
              + "\", which cannot give the cost of its calls: " + invalid.getMessage() + ".",
          "Fix the settle expression: the key language over #result (the returned value, or the value a"
              + " CompletionStage or Mono completes with, a Flux's last element) and the method's arguments,"
              + " e.g. settle = \"#result.usage.totalTokens\" (see docs/annotation.md).");
    }
  }

  private @Nullable Class<?> holder(Class<?>[] classes, String attribute) {
    if (classes.length > 1) {
      throw new RateLimitedDeclarationException(beanClass, method,
          "@RateLimited on " + describe(beanClass, method) + " names " + classes.length + " classes in " + attribute
              + " " + Arrays.stream(classes).map(Class::getName).toList() + "; at most one is allowed.",
          "Name a single class in " + attribute + ", or none to use the bean's own class.");
    }
    return classes.length == 0 ? null : classes[0];
  }

  private Handler[] handlers(Kind kind, String name, @Nullable Class<?> otherClass) {
    if (name.isEmpty()) {
      return NONE;
    }
    Class<?> holder = otherClass != null ? otherClass : beanClass;
    boolean staticOnly = otherClass != null;
    Method[] candidates = ReflectionUtils.getUniqueDeclaredMethods(holder,
        m -> m.getName().equals(name) && !m.isBridge() && !m.isSynthetic());
    List<Handler> handlers = new ArrayList<>();
    List<Method> matched = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    for (Method candidate : candidates) {
      String mismatch = mismatch(kind, candidate, staticOnly);
      if (mismatch != null) {
        rejected.add(signature(candidate) + ": " + mismatch);
        continue;
      }
      int leading = kind.takesArgs ? ReturnKind.callParameters(method).length : 0;
      Class<?>[] candidateParameters = ReturnKind.callParameters(candidate);
      boolean takesThrowable = candidateParameters.length > leading;
      Class<? extends Throwable> appliesTo = takesThrowable
          ? candidateParameters[leading].asSubclass(Throwable.class) : Throwable.class;
      for (Method other : matched) {
        Class<?>[] otherParameters = ReturnKind.callParameters(other);
        Class<?> otherType = otherParameters.length > leading ? otherParameters[leading] : Throwable.class;
        if (otherType == appliesTo) {
          throw new RateLimitedDeclarationException(beanClass, method,
              "@RateLimited on " + describe(beanClass, method) + " names " + kind.attribute + " \"" + name
                  + "\", and " + holder.getName() + " has two methods of that name for the same exceptions:\n\t"
                  + signature(other) + "\n\t" + signature(candidate),
              "Keep one of them (a " + kind.attribute + " without a Throwable parameter handles every Throwable).");
        }
      }
      matched.add(candidate);
      handlers.add(ReturnKind.isSuspending(candidate)
          ? Handler.suspending(candidate, leading, kind.takesArgs, takesThrowable, appliesTo)
          : Handler.of(candidate, leading, kind.takesArgs, takesThrowable, appliesTo));
    }
    if (handlers.isEmpty()) {
      throw notFound(kind, name, holder, staticOnly, rejected);
    }
    handlers.sort(Comparator.comparingInt((Handler h) -> depth(h.appliesTo)).reversed());
    return handlers.toArray(NONE);
  }

  private @Nullable String mismatch(Kind kind, Method candidate, boolean staticOnly) {
    boolean isStatic = Modifier.isStatic(candidate.getModifiers());
    if (staticOnly && !isStatic) {
      return "is not static; a handler in another class than the bean's must be static";
    }
    Class<?>[] leading = kind.takesArgs ? ReturnKind.callParameters(method) : new Class<?>[0];
    Class<?>[] params = ReturnKind.callParameters(candidate);
    int extra = params.length - leading.length;
    boolean shapeOk = extra >= 0 && extra <= 1
        && Arrays.equals(Arrays.copyOf(params, leading.length), leading)
        && (extra == 1 ? kind.bound.isAssignableFrom(params[leading.length]) : !kind.throwableRequired);
    if (!shapeOk) {
      return "takes (" + names(params) + "), expected " + expectedParameters(kind, leading);
    }
    if (returns == ReturnKind.SUSPEND) {
      return suspendMismatch(candidate);
    }
    if (ReturnKind.isSuspending(candidate)) {
      return "is a suspend function, which answers only a suspend function; " + method.getName() + " is not one";
    }
    Class<?> expectedReturn = method.getReturnType();
    Class<?> actualReturn = candidate.getReturnType();
    boolean returnOk = expectedReturn == void.class ? actualReturn == void.class
        : actualReturn != void.class && ClassUtils.isAssignable(expectedReturn, actualReturn);
    if (!returnOk && returns.isAsync() && actualReturn != void.class && ReturnKind.of(candidate) == ReturnKind.VALUE) {
      // a plain value of the element type completes the stage, or is the publisher's value
      Class<?> element = ReturnKind.elementType(method, beanClass);
      returnOk = ClassUtils.isAssignable(element, actualReturn);
      if (!returnOk) {
        return "returns " + actualReturn.getSimpleName() + ", which is neither assignable to "
            + expectedReturn.getSimpleName() + " nor to its element type " + element.getSimpleName();
      }
    }
    if (!returnOk) {
      return "returns " + actualReturn.getSimpleName() + ", which is not assignable to "
          + expectedReturn.getSimpleName();
    }
    return checkedMismatch(candidate);
  }

  /**
   * The return rule for a handler of a suspend function returning {@code R}: a suspend handler
   * returning a subtype of {@code R}, or a plain one returning such a value (void for {@code Unit})
   * or a {@code Mono} of it. The continuation parameters are not counted (see {@link ReturnKind#callParameters}).
   */
  private @Nullable String suspendMismatch(Method candidate) {
    Class<?> expected = ReturnKind.suspendResult(method, beanClass);
    boolean unit = expected.getName().equals("kotlin.Unit");
    if (ReturnKind.isSuspending(candidate)) {
      Class<?> actual = ReturnKind.suspendResult(candidate, candidate.getDeclaringClass());
      if (!ClassUtils.isAssignable(expected, actual)) {
        return "returns " + actual.getSimpleName() + ", which is not assignable to " + expected.getSimpleName();
      }
      return checkedMismatch(candidate);
    }
    Class<?> actual = candidate.getReturnType();
    boolean ok = actual == void.class ? unit
        : ClassUtils.isAssignable(expected, actual) || ReturnKind.of(candidate) == ReturnKind.MONO;
    if (!ok) {
      return "returns " + actual.getSimpleName() + ", which is not assignable to " + expected.getSimpleName()
          + ", the result of suspend function " + method.getName();
    }
    return checkedMismatch(candidate);
  }

  private @Nullable String checkedMismatch(Method candidate) {
    for (Class<?> thrown : candidate.getExceptionTypes()) {
      if (isChecked(thrown) && !declares(method, thrown)) {
        return "declares checked exception " + thrown.getName() + ", which " + method.getName()
            + " does not declare (callers would get it wrapped in an UndeclaredThrowableException)";
      }
    }
    return null;
  }

  private RateLimitedDeclarationException notFound(Kind kind, String name, Class<?> holder, boolean staticOnly,
      List<String> rejected) {
    boolean suspending = returns == ReturnKind.SUSPEND;
    String returnType = suspending ? ReturnKind.suspendResult(method, beanClass).getSimpleName()
        : method.getReturnType().getSimpleName();
    Class<?>[] leading = kind.takesArgs ? ReturnKind.callParameters(method) : new Class<?>[0];
    List<String> expected = new ArrayList<>();
    String prefix = (staticOnly ? "static " : "") + (suspending ? "[suspend] " : "") + returnType + " " + name + "(";
    switch (kind) {
      case BLOCK_HANDLER -> {
        expected.add(prefix + names(leading, "BlockException") + ")");
        expected.add(prefix + names(leading, "FlowException") + "), or another subclass of BlockException"
            + " (DegradeException, ParamFlowException, AuthorityException, SystemBlockException): handles"
            + " blocks of that kind only");
      }
      case FALLBACK -> {
        expected.add(prefix + names(leading) + ")");
        expected.add(prefix + names(leading, "Throwable") + "), or a subclass of Throwable: handles that kind only");
      }
      case DEFAULT_FALLBACK -> {
        expected.add(prefix + ")");
        expected.add(prefix + "Throwable), or a subclass of Throwable: handles that kind only");
      }
    }
    StringBuilder description = new StringBuilder()
        .append("@RateLimited on ").append(describe(beanClass, method)).append(" names ").append(kind.attribute)
        .append(" \"").append(name).append("\", but ").append(holder.getName())
        .append(rejected.isEmpty() ? " has no method of that name." : " has no method of that name with a matching"
            + " signature.");
    description.append("\n\nMethods named \"").append(name).append("\" found:");
    if (rejected.isEmpty()) {
      description.append("\n\tnone");
    }
    for (String reason : rejected) {
      description.append("\n\t").append(reason);
    }
    description.append("\n\nSignatures that would match (")
        .append(staticOnly ? "static, any visibility" : "any visibility, static or not")
        .append(suspending ? "; a suspend function or a plain one, its continuation not counted" : "").append("):");
    for (String signature : expected) {
      description.append("\n\t").append(signature);
    }
    String action = "Declare one of the signatures above in " + holder.getName() + ", or correct the "
        + kind.attribute + " attribute of @RateLimited on " + describe(beanClass, method) + ".";
    return new RateLimitedDeclarationException(beanClass, method, description.toString(), action);
  }

  private static String expectedParameters(Kind kind, Class<?>[] leading) {
    return switch (kind) {
      case BLOCK_HANDLER -> "(" + names(leading, "BlockException") + ") or a subclass of BlockException last";
      case FALLBACK -> "(" + names(leading) + "), optionally followed by a Throwable";
      case DEFAULT_FALLBACK -> "() or (Throwable)";
    };
  }

  static String describe(Class<?> beanClass, Method method) {
    return (ReturnKind.isSuspending(method) ? "suspend " : "") + beanClass.getName() + "." + method.getName() + "("
        + names(ReturnKind.callParameters(method)) + ")";
  }

  private static String signature(Method candidate) {
    String modifiers = Modifier.toString(candidate.getModifiers() & (Modifier.methodModifiers() & ~Modifier.ABSTRACT));
    boolean suspending = ReturnKind.isSuspending(candidate);
    String returnType = suspending ? ReturnKind.suspendResult(candidate, candidate.getDeclaringClass()).getSimpleName()
        : candidate.getReturnType().getSimpleName();
    return (modifiers.isEmpty() ? "" : modifiers + " ") + (suspending ? "suspend " : "") + returnType + " "
        + candidate.getName() + "(" + names(ReturnKind.callParameters(candidate)) + ")";
  }

  private static String names(Class<?>[] types, String... more) {
    List<String> all = new ArrayList<>();
    for (Class<?> type : types) {
      all.add(type.getSimpleName());
    }
    all.addAll(Arrays.asList(more));
    return all.stream().collect(Collectors.joining(", "));
  }

  private static boolean isChecked(Class<?> thrown) {
    return !RuntimeException.class.isAssignableFrom(thrown) && !Error.class.isAssignableFrom(thrown);
  }

  private static boolean declares(Method method, Class<?> thrown) {
    for (Class<?> declared : method.getExceptionTypes()) {
      if (declared.isAssignableFrom(thrown)) {
        return true;
      }
    }
    return false;
  }

  private static int depth(Class<?> type) {
    int depth = 0;
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      depth++;
    }
    return depth;
  }
}
