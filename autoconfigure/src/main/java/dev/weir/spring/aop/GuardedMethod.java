package dev.weir.spring.aop;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @RateLimited} method as resolved at startup: its resource, its exception filters and
 * its handlers, most specific first. Routing follows {@link dev.weir.annotation.RateLimited}.
 */
final class GuardedMethod {

  final String resource;
  final EntryType entryType;
  final int permits;
  /** The annotation's criticality: the call's own, unless a context gives one or a request lowers it. */
  final Criticality criticality;
  final ReturnKind returns;
  /** The {@code settle} expression, or null when the call keeps its estimate. */
  final @Nullable Settlement settlement;
  private final Class<?>[] trace;
  private final boolean traceAll;
  private final Class<?>[] ignore;
  private final Handler[] blockHandlers;
  private final Handler[] fallbacks;
  private final Handler[] defaultFallbacks;
  /**
   * This method bound to the engine of its calls: null until the first call. Written without
   * synchronisation: two first calls may both bind it, to equal handles of the same engine, and a
   * {@link Bound} is immutable (final fields), so any thread that reads one sees it whole.
   */
  private @Nullable Bound bound;

  /**
   * A guarded method bound to an engine: the engine, its handle on the method's resource, and the
   * observer of refusals; what the calls of the method need besides the method itself.
   */
  static final class Bound {
    final Weir weir;
    final Resource resource;
    final Supplier<RefusalObserver> observer;

    Bound(Weir weir, Resource resource, Supplier<RefusalObserver> observer) {
      this.weir = weir;
      this.resource = resource;
      this.observer = observer;
    }
  }

  GuardedMethod(String resource, EntryType entryType, int permits, Criticality criticality, ReturnKind returns, Class<?>[] trace,
      Class<?>[] ignore, Handler[] blockHandlers, Handler[] fallbacks, Handler[] defaultFallbacks) {
    this(resource, entryType, permits, criticality, returns, trace, ignore, blockHandlers, fallbacks, defaultFallbacks,
        null);
  }

  GuardedMethod(String resource, EntryType entryType, int permits, Criticality criticality, ReturnKind returns, Class<?>[] trace,
      Class<?>[] ignore, Handler[] blockHandlers, Handler[] fallbacks, Handler[] defaultFallbacks,
      @Nullable Settlement settlement) {
    this.settlement = settlement;
    this.resource = resource;
    this.entryType = entryType;
    this.permits = permits;
    this.criticality = criticality;
    this.returns = returns;
    this.trace = trace.clone();
    this.traceAll = contains(trace, Throwable.class);
    this.ignore = ignore.clone();
    this.blockHandlers = blockHandlers.clone();
    this.fallbacks = fallbacks.clone();
    this.defaultFallbacks = defaultFallbacks.clone();
  }

  /**
   * Returns this method bound to {@code weir}: the engine's handle on its resource, resolved on the
   * first call and kept, so that the calls make no name lookup. The engine is compared so that an
   * advisor given another engine (a supplier of the application's own) never uses a handle of the
   * former one.
   */
  Bound bind(Weir weir, Supplier<RefusalObserver> observer) {
    Bound known = bound;
    if (known != null && known.weir == weir) {
      return known;
    }
    Bound fresh = new Bound(weir, weir.resource(resource), observer);
    bound = fresh;
    return fresh;
  }

  /** Every handler method, for the native-image hints of {@link RateLimitedAotProcessor}. */
  java.util.stream.Stream<java.lang.reflect.Method> handlerMethods() {
    return java.util.stream.Stream.of(blockHandlers, fallbacks, defaultFallbacks)
        .flatMap(java.util.Arrays::stream).map(Handler::method);
  }

  /** Routes a refusal: blockHandler, fallback, defaultFallback, else rethrows it. */
  @Nullable Object blocked(@Nullable Object target, Object[] args, BlockException block) throws Throwable {
    for (Handler handler : blockHandlers) {
      if (handler.appliesTo(block)) {
        return handler.invoke(target, args, block);
      }
    }
    return fallBack(target, args, block);
  }

  /**
   * Whether {@code failure} is recorded on the call's entry as an error (before the entry is
   * closed): a traced failure that is neither ignored nor a nested refusal.
   */
  boolean traces(Throwable failure) {
    return !isIgnored(failure) && !(failure instanceof BlockException) && (traceAll || isInstance(trace, failure));
  }

  /**
   * Routes {@code failure}, thrown by a call whose entry is closed already: ignored and untraced
   * ones are rethrown, nested refusals go the way of a refusal, traced ones go to the fallbacks. No
   * handler answers when the failure left the transaction of the calling thread unable to commit
   * (the method joined it, and its {@code @Transactional} marked it rollback-only): the failure goes
   * on to the transaction's owner, see {@link Transactions}. The entry is not passed here, so that
   * it stays in the interceptor's frame and the JIT can remove it.
   */
  @Nullable Object failed(@Nullable Object target, Object[] args, Throwable failure) throws Throwable {
    if (isIgnored(failure)) {
      throw failure;
    }
    if (failure instanceof BlockException block) {
      if (Transactions.mustRollBack()) {
        throw block;
      }
      return blocked(target, args, block);
    }
    if (!(traceAll || isInstance(trace, failure)) || Transactions.mustRollBack()) {
      throw failure; // untraced, or the transaction can only roll back
    }
    return fallBack(target, args, failure);
  }

  private @Nullable Object fallBack(@Nullable Object target, Object[] args, Throwable throwable) throws Throwable {
    for (Handler handler : fallbacks) {
      if (handler.appliesTo(throwable)) {
        return handler.invoke(target, args, throwable);
      }
    }
    for (Handler handler : defaultFallbacks) {
      if (handler.appliesTo(throwable)) {
        return handler.invoke(target, args, throwable);
      }
    }
    throw throwable;
  }

  /** Whether any handler may answer a refusal or a failure of this method. */
  boolean hasHandlers() {
    return blockHandlers.length + fallbacks.length + defaultFallbacks.length != 0;
  }

  private boolean isIgnored(Throwable failure) {
    return ignore.length != 0 && isInstance(ignore, failure);
  }

  private static boolean isInstance(Class<?>[] types, Throwable throwable) {
    for (Class<?> type : types) {
      if (type.isInstance(throwable)) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(Class<?>[] types, Class<?> type) {
    for (Class<?> candidate : types) {
      if (candidate == type) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "GuardedMethod{" + resource + "}";
  }
}
