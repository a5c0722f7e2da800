package dev.weir.spring.aop;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.web.CriticalityClaim;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoOperator;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Guards the subscriptions of a publisher returned by a {@code Mono}, {@code Flux} or
 * {@code Publisher} method. Loaded only when such a method is called, so only with Reactor present.
 *
 * <p>The method runs once, when called, and assembles its publisher; what is guarded is each
 * subscription to it: {@link GuardedMono}/{@link GuardedFlux} take an
 * {@linkplain Weir#asyncEntry asynchronous entry} when subscribed (in the {@link ReactiveContext}
 * of the subscriber's Reactor context, else in the subscribing thread's; with the criticality
 * under the key {@code Criticality.class} there, else the annotation's lowered by the claim under
 * {@code CriticalityClaim.class}, or by the subscribing thread's), and the
 * {@link GuardedSubscriber} closes it exactly once, on the first of complete, error and cancel
 * (for a {@code Mono}, on its value), before passing the signal on; a cancel before any value is
 * an {@linkplain Entry#cancel() entry cancelled}, with no outcome. A refusal is an error signal.
 * Errors, refusals included, then go through the handlers when the method has any, by an
 * {@code onErrorResume} after the guard; a handler's publisher is subscribed in place of the
 * failed one, a plain value is emitted, and what the handlers pass on goes on as the error.
 */
final class ReactorCalls {

  private ReactorCalls() {
  }

  static @Nullable Object invoke(Weir weir, Supplier<RefusalObserver> observer, GuardedMethod guarded,
      MethodInvocation invocation, @Nullable Object target, Object[] args) throws Throwable {
    Object assembled = invocation.proceed(); // the method itself runs now, as without the guard
    if (assembled == null) {
      return null;
    }
    if (guarded.returns == ReturnKind.MONO) {
      Mono<Object> guardedMono = new GuardedMono<>(uncheckedMono(assembled), weir, observer, guarded, args);
      return guarded.hasHandlers() ? guardedMono.onErrorResume(failure -> handled(guarded, target, args, failure)
          .as(Mono::from)) : guardedMono;
    }
    Flux<Object> guardedFlux = new GuardedFlux<>(Flux.from(uncheckedPublisher(assembled)), weir, observer, guarded,
        args);
    return guarded.hasHandlers() ? guardedFlux.onErrorResume(failure -> handled(guarded, target, args, failure))
        : guardedFlux;
  }

  /** What the handlers make of {@code failure}: their publisher, their value, or the error they pass on. */
  private static Flux<Object> handled(GuardedMethod guarded, @Nullable Object target, Object[] args,
      Throwable failure) {
    Object answer;
    try {
      answer = guarded.failed(target, args, failure);
    } catch (Throwable passedOn) {
      return Flux.error(passedOn);
    }
    if (answer instanceof Publisher<?> publisher) {
      return Flux.from(uncheckedPublisher(publisher));
    }
    return answer == null ? Flux.empty() : Flux.just(answer);
  }

  @SuppressWarnings("unchecked")
  private static Mono<Object> uncheckedMono(Object mono) {
    return (Mono<Object>) mono;
  }

  @SuppressWarnings("unchecked")
  private static Publisher<Object> uncheckedPublisher(Object publisher) {
    return (Publisher<Object>) publisher;
  }

  /**
   * Takes the entry of one subscription, or answers the subscriber with the refusal (or with what
   * a slot threw) and returns null.
   */
  private static @Nullable Entry enter(Weir weir, Supplier<RefusalObserver> observer, GuardedMethod guarded,
      Object[] args, CoreSubscriber<?> subscriber) {
    Context reactor = subscriber.currentContext();
    ReactiveContext context = reactor.getOrDefault(ReactiveContext.class, null);
    Criticality given = reactor.getOrDefault(Criticality.class, null);
    Criticality claim = reactor.getOrDefault(CriticalityClaim.class, null);
    Criticality own = CriticalityClaim.bound(guarded.criticality, claim != null ? claim : CriticalityClaim.current());
    try {
      if (context == null) {
        // the subscribing thread's context; a criticality written into the chain is the call's own
        // then, which a context of that thread that gives one would still override
        return weir.asyncEntry(guarded.resource, guarded.entryType, guarded.permits, given != null ? given : own,
            args);
      }
      if (given != null) {
        return weir.callInContext(context.name(), context.origin(), given,
            () -> weir.asyncEntry(guarded.resource, guarded.entryType, guarded.permits, given, args));
      }
      return weir.callInContext(context.name(), context.origin(),
          () -> weir.asyncEntry(guarded.resource, guarded.entryType, guarded.permits, own, args));
    } catch (RuntimeException | Error refusedOrFailed) { // a BlockException, or a slot's failure
      if (refusedOrFailed instanceof BlockException refused) {
        observer.get().refused(refused,
            subscriber.currentContext().getOrDefault(RefusalObserver.OBSERVATION_KEY, null));
      }
      Operators.error(subscriber, refusedOrFailed);
      return null;
    }
  }

  private static <T> void subscribeGuarded(Publisher<? extends T> source, Weir weir,
      Supplier<RefusalObserver> observer, GuardedMethod guarded, Object[] args, CoreSubscriber<? super T> actual,
      boolean closeOnValue) {
    Entry entry = enter(weir, observer, guarded, args, actual);
    if (entry == null) {
      return;
    }
    GuardedSubscriber<T> subscriber = new GuardedSubscriber<>(actual, entry, guarded, closeOnValue);
    try {
      source.subscribe(subscriber);
    } catch (Throwable failure) {
      entry.close();
      Operators.reportThrowInSubscribe(actual, failure);
    }
  }

  /** A guarded {@code Mono}: one entry per subscription. */
  static final class GuardedMono<T> extends MonoOperator<T, T> {
    private final Weir weir;
    private final Supplier<RefusalObserver> observer;
    private final GuardedMethod guarded;
    private final Object[] args;

    GuardedMono(Mono<? extends T> source, Weir weir, Supplier<RefusalObserver> observer, GuardedMethod guarded,
        Object[] args) {
      super(source);
      this.weir = weir;
      this.observer = observer;
      this.guarded = guarded;
      this.args = args;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
      subscribeGuarded(source, weir, observer, guarded, args, actual, true);
    }
  }

  /** A guarded {@code Flux}: one entry per subscription. */
  static final class GuardedFlux<T> extends FluxOperator<T, T> {
    private final Weir weir;
    private final Supplier<RefusalObserver> observer;
    private final GuardedMethod guarded;
    private final Object[] args;

    GuardedFlux(Flux<? extends T> source, Weir weir, Supplier<RefusalObserver> observer, GuardedMethod guarded,
        Object[] args) {
      super(source);
      this.weir = weir;
      this.observer = observer;
      this.guarded = guarded;
      this.args = args;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
      subscribeGuarded(source, weir, observer, guarded, args, actual, false);
    }
  }

  /**
   * Passes every signal through unchanged, and closes the subscription's entry exactly once
   * ({@link Entry#close()} and {@link Entry#cancel()} are idempotent together, whichever thread
   * signals): before passing on a complete or an error (recorded first when traced), a
   * {@code Mono}'s value, or a cancel. A cancel after a {@code Flux}'s first value closes the entry
   * (the resource answered: {@code take(n)} ends a stream this way); a cancel before any value (a
   * disposed subscription, a {@code timeout} downstream) cancels it: nothing is known of the call.
   */
  static final class GuardedSubscriber<T> implements CoreSubscriber<T>, Subscription {
    private final CoreSubscriber<? super T> actual;
    private final Entry entry;
    private final GuardedMethod guarded;
    private final boolean closeOnValue;
    private @Nullable Subscription upstream;
    /** A value was passed on; read by a cancel, which may come from another thread. */
    private volatile boolean answered;

    GuardedSubscriber(CoreSubscriber<? super T> actual, Entry entry, GuardedMethod guarded, boolean closeOnValue) {
      this.actual = actual;
      this.entry = entry;
      this.guarded = guarded;
      this.closeOnValue = closeOnValue;
    }

    @Override
    public Context currentContext() {
      return actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription subscription) {
      if (Operators.validate(upstream, subscription)) {
        upstream = subscription;
        actual.onSubscribe(this);
      }
    }

    @Override
    public void onNext(T value) {
      if (closeOnValue) {
        entry.close();
      } else if (!answered) {
        answered = true;
      }
      actual.onNext(value);
    }

    @Override
    public void onError(Throwable failure) {
      if (guarded.traces(failure)) {
        entry.recordError(failure);
      }
      entry.close();
      actual.onError(failure);
    }

    @Override
    public void onComplete() {
      entry.close();
      actual.onComplete();
    }

    @Override
    public void request(long n) {
      Subscription subscription = upstream;
      if (subscription != null) {
        subscription.request(n);
      }
    }

    @Override
    public void cancel() {
      Subscription subscription = upstream;
      try {
        if (subscription != null) {
          subscription.cancel();
        }
      } finally { // after the upstream stopped, and even if its cancel threw
        if (answered) {
          entry.close();
        } else {
          entry.cancel();
        }
      }
    }
  }
}
