package dev.weir.annotation;

import dev.weir.Criticality;
import dev.weir.EntryType;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Guards a method of a Spring bean with the Weir engine: every call through the bean's proxy
 * enters the method's resource, and is either admitted, or refused by a rule with a
 * {@link dev.weir.BlockException}.
 *
 * <p>On a method, it guards that method. On a type, it guards every public method of the bean
 * (methods declared by {@link Object} excepted), each one a resource of its own named
 * {@code SimpleClassName.methodName}; a method's own annotation then wins over the type's, except
 * that {@link #defaultFallback()} (with {@link #fallbackClass()}) set only on the type applies to
 * the method too. Annotations on interface methods and overridden methods are found.
 *
 * <h2>Handlers</h2>
 * Handlers are methods named by the annotation and looked up when the application starts; a
 * missing or mismatched one stops the start, naming the class, the method and the signatures that
 * would match. Their return type must be assignable to the guarded method's, and they may not
 * declare checked exceptions that the guarded method does not declare.
 * <ul>
 *   <li>{@link #blockHandler()}: the method's parameter types, then one {@code BlockException};
 *       declare the parameter as a subclass ({@code FlowException}, ...) to handle only blocks of
 *       that kind. Overloads for several kinds may coexist; the most specific applies.
 *   <li>{@link #fallback()}: the method's parameter types, optionally followed by one
 *       {@code Throwable} or a subclass of it (then used only for exceptions of that kind).
 *   <li>{@link #defaultFallback()}: no parameters, or one {@code Throwable} (or a subclass).
 * </ul>
 * Handlers live on the bean's own class (any visibility, static or not), or, when
 * {@link #blockHandlerClass()} / {@link #fallbackClass()} is set, are {@code static} methods of
 * that class.
 *
 * <h2>Routing</h2>
 * When a rule refuses the call: blockHandler, else fallback, else defaultFallback, else the
 * {@code BlockException} is rethrown as is. When the call throws an exception listed in
 * {@link #exceptionsToTrace()} (and not in {@link #exceptionsToIgnore()}): it is recorded as a
 * failure, then fallback, else defaultFallback, else it is rethrown as is. Exceptions not traced
 * propagate untouched and uncounted. A {@code BlockException} thrown from inside the method (a
 * nested guarded call was refused) is routed like a refusal of this method, and is not counted as
 * a failure. Checked exceptions propagate as declared, never wrapped.
 *
 * <h2>Asynchronous and reactive methods</h2>
 * A method declared to return {@code CompletionStage} or {@code CompletableFuture} is guarded
 * until the stage completes: its entry is taken when the method is called and released when the
 * stage completes or the returned future is cancelled (which cancels the method's own future). A
 * method returning Reactor's {@code Mono}, {@code Flux} or a {@code Publisher} is guarded per
 * subscription: the method itself runs when called, unguarded (it assembles the publisher), and
 * each subscription to the returned publisher takes an entry, released exactly once on
 * completion, error or cancellation. For both, an exceptional completion or error signal is a
 * failure routed as above, a refusal without a handler reaches the caller as the stage's or
 * publisher's error (never thrown from the method), and a handler may return the method's own
 * type or a plain value of its element type. A Kotlin {@code suspend} function or a method
 * returning a Kotlin {@code Flow} is refused at start.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {

  /**
   * The resource name; empty means {@code SimpleClassName.methodName} of the bean's class. Must
   * stay empty on a type, where every public method is a resource of its own.
   */
  String value() default "";

  /** The direction of the calls; system rules apply to {@link EntryType#IN} only. */
  EntryType entryType() default EntryType.OUT;

  /** The name of the method called when a rule refuses the call; empty for none. */
  String blockHandler() default "";

  /**
   * The class holding a {@code static} {@link #blockHandler()}; empty means the bean's own class.
   * At most one class.
   */
  Class<?>[] blockHandlerClass() default {};

  /**
   * The name of the method called when the call throws a traced exception, and for refusals when
   * no block handler applies; empty for none.
   */
  String fallback() default "";

  /** The name of the last-resort handler of both exceptions and refusals; empty for none. */
  String defaultFallback() default "";

  /**
   * The class holding a {@code static} {@link #fallback()} and {@link #defaultFallback()}; empty
   * means the bean's own class. At most one class.
   */
  Class<?>[] fallbackClass() default {};

  /** The exceptions that count as failures of the call and go to the fallback. */
  Class<? extends Throwable>[] exceptionsToTrace() default {Throwable.class};

  /**
   * The exceptions rethrown untouched: not counted as failures, never sent to a fallback. Wins
   * over {@link #exceptionsToTrace()}.
   */
  Class<? extends Throwable>[] exceptionsToIgnore() default {};

  /**
   * The permits one call takes, at least 1: a call weighing {@code n} counts as {@code n} calls
   * against flow and param-flow rules (a {@code threads} rule too: it holds {@code n} places).
   */
  int permits() default 1;

  /**
   * A key-language expression over {@code #result} (the returned value, or the value a
   * {@code CompletionStage}/{@code Mono} completes with, a {@code Flux}'s last element) and the
   * method's arguments (named as for keys: {@code #name}, {@code #p0}, {@code #a0}, {@code #args})
   * giving the call's actual cost; empty for none. The entry takes {@link #permits()} (the estimate)
   * before the call and is settled to this cost after it ({@link dev.weir.Entry#settle(long)}). The
   * value must be a whole number of 0 or more (a fraction rounds up); a null result, a failed
   * evaluation or another value keeps the estimate and counts in {@code weir.settle.failures}, never
   * thrown. A call that fails, is refused or is cancelled keeps its estimate. An expression that
   * cannot apply (a syntax error, a member the language refuses, {@code #result} on a method without
   * a result) stops the start, naming the method. Example:
   * {@code settle = "#result.usage.totalTokens"}.
   */
  String settle() default "";

  /**
   * The call's criticality when no context gave one ({@code Weir.enterContext(name, origin,
   * criticality)}, a {@code Criticality} in the Reactor context): when an {@code adaptive} limit
   * binds, lower criticalities are shed first. A request's {@code weir.web.criticality-header} (or
   * gRPC {@code weir.grpc.criticality-metadata}) may lower it for the calls made while serving that
   * request, never raise it (see docs/criticality.md).
   */
  Criticality criticality() default Criticality.CRITICAL;
}
