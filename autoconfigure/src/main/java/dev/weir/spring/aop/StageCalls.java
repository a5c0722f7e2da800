package dev.weir.spring.aop;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.web.CriticalityClaim;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Guards a call of a method returning a {@code CompletionStage} until the stage completes.
 *
 * <p>The entry is an {@linkplain Weir#asyncEntry asynchronous} one, taken when the method is
 * called and closed when the method's stage completes, or {@linkplain Entry#cancel() cancelled}
 * when the caller completes the future returned here first (cancels it, times it out, or completes
 * it with a value of its own), which also cancels the method's own future, when it is one. The
 * caller always gets a new {@code CompletableFuture}, completed after the entry is closed: with the
 * method's value, or with what the handlers make of a refusal or an exceptional completion (a plain
 * value, or a stage whose outcome it takes), or exceptionally with the refusal or failure the
 * handlers pass on. A failure the method throws before it returns a stage leaves the method as it came,
 * after the same routing as for a synchronous call.
 */
final class StageCalls {

  private StageCalls() {
  }

  static @Nullable Object invoke(Resource resource, Supplier<RefusalObserver> observer, GuardedMethod guarded,
      MethodInvocation invocation, @Nullable Object target, Object[] args) throws Throwable {
    Entry entry;
    try {
      entry = resource.asyncEntry(guarded.entryType, guarded.permits, CriticalityClaim.bound(guarded.criticality), args);
    } catch (BlockException block) {
      observer.get().refused(block);
      CompletableFuture<Object> result = new CompletableFuture<>();
      settle(result, () -> guarded.blocked(target, args, block));
      return result;
    }
    CompletionStage<?> stage;
    try {
      stage = (CompletionStage<?>) invocation.proceed();
    } catch (Throwable failure) {
      if (guarded.traces(failure)) {
        entry.recordError(failure);
      }
      entry.close();
      Object answer = guarded.failed(target, args, failure); // what the handlers pass on is thrown, as it came
      return answer instanceof CompletionStage<?> ? answer : CompletableFuture.completedFuture(answer);
    }
    if (stage == null) {
      entry.close();
      return null;
    }
    CompletableFuture<Object> result = new CompletableFuture<>();
    result.whenComplete((value, error) -> {
      /*
       * Weir completes the result only after closing the entry (see follow and settle), so a result
       * done while the entry is open was completed by the caller: cancelled, timed out (orTimeout),
       * or given a value of its own (complete, completeOnTimeout). The caller gave up on the
       * method's outcome: the call is released as cancelled and the method's future cancelled. If
       * the stage completes meanwhile, whichever of its close and this cancel comes first decides.
       */
      if (entry.isOpen()) {
        entry.cancel();
        if (stage instanceof CompletableFuture<?> future) {
          future.cancel(false);
        }
      }
    });
    try {
      follow(stage, result, entry, guarded, target, args);
    } catch (RuntimeException | Error e) { // a CompletionStage of the application's own that failed to take the callback
      entry.close();
      throw e;
    }
    return result;
  }

  /** Completes {@code result} when {@code stage} completes, after closing the entry. */
  private static void follow(CompletionStage<?> stage, CompletableFuture<Object> result, Entry entry,
      GuardedMethod guarded, @Nullable Object target, Object[] args) {
    stage.whenComplete((value, error) -> {
      if (error == null) {
        Settlement settlement = guarded.settlement;
        if (settlement != null) {
          settlement.settle(entry, args, value);
        }
        entry.close();
        result.complete(value);
        return;
      }
      Throwable failure = unwrap(error);
      if (guarded.traces(failure)) {
        entry.recordError(failure);
      }
      entry.close();
      if (!result.isDone()) { // not cancelled meanwhile: nobody waits for a fallback then
        settle(result, () -> guarded.failed(target, args, failure));
      }
    });
  }

  /** What a handler gives, or the throwable it passes on. */
  @FunctionalInterface
  interface HandlerCall {
    @Nullable Object call() throws Throwable;
  }

  /**
   * Completes {@code result} with what {@code handler} returns: a stage's outcome, or a plain
   * value; exceptionally with what it throws.
   */
  private static void settle(CompletableFuture<Object> result, HandlerCall handler) {
    Object answer;
    try {
      answer = handler.call();
    } catch (Throwable passedOn) {
      result.completeExceptionally(passedOn);
      return;
    }
    if (answer instanceof CompletionStage<?> stage) {
      stage.whenComplete((value, error) -> {
        if (error == null) {
          result.complete(value);
        } else {
          result.completeExceptionally(unwrap(error));
        }
      });
    } else {
      result.complete(answer);
    }
  }

  /** The failure itself, out of the wrappers that completion stages put around it. */
  static Throwable unwrap(Throwable error) {
    Throwable failure = error;
    while ((failure instanceof CompletionException || failure instanceof ExecutionException)
        && failure.getCause() != null) {
      failure = failure.getCause();
    }
    return failure;
  }
}
