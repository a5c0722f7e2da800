package dev.weir.spring.aop;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Resource;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.reactive.ReactiveEntries;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
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
 * {@linkplain Resource#asyncEntry asynchronous entry} of the method's {@link Resource} handle when
 * subscribed (in the context and with the criticality that the subscriber's Reactor context gives,
 * {@link ReactiveEntries}), and one {@link GuardedSubscriber} per subscription, both the subscriber of the method's
 * publisher and the subscription its subscriber sees, closes it exactly once, on the first of
 * complete, error and cancel (for a {@code Mono}, on its value), before passing the signal on; a
 * cancel before any value is an {@linkplain Entry#cancel() entry cancelled}, with no outcome.
 *
 * <p>Refusals and errors go through the method's handlers, when it has any, in the same objects, with
 * no operator chained after the guard: a refusal is answered when the subscription starts, by
 * subscribing the subscriber to what the handlers make of it (their publisher, their value, or the
 * error they pass on); an error after the subscription started is answered by the guarding subscriber,
 * which then passes on what the handlers make of it, with the demand its subscriber has left (see
 * {@link GuardedSubscriber}). Without handlers a refusal is an error signal.
 */
final class ReactorCalls {

  private ReactorCalls() {
  }

  static @Nullable Object invoke(GuardedMethod.Bound bound, GuardedMethod guarded, MethodInvocation invocation,
      @Nullable Object target, Object[] args) throws Throwable {
    Object assembled = invocation.proceed(); // the method itself runs now, as without the guard
    if (assembled == null) {
      return null;
    }
    if (guarded.returns == ReturnKind.MONO || guarded.returns == ReturnKind.SUSPEND && assembled instanceof Mono) {
      // a suspend function's Mono is the one its proxy awaits in the caller's coroutine: a refusal is
      // its error, thrown there, and a cancelled coroutine cancels this subscription
      return new GuardedMono<>(uncheckedMono(assembled), bound, guarded, target, args);
    }
    if (guarded.returns == ReturnKind.FLOW) {
      return KotlinFlows.asFlow(new GuardedFlux<>(KotlinFlows.asFlux(assembled), bound, guarded, target, args));
    }
    return new GuardedFlux<>(Flux.from(uncheckedPublisher(assembled)), bound, guarded, target, args);
  }

  /**
   * What the handlers make of {@code failure}: their publisher (for a {@code Mono} method, its first
   * value), their value, or the error they pass on.
   */
  static Publisher<Object> handled(GuardedMethod guarded, @Nullable Object target, Object[] args,
      Throwable failure, boolean mono) {
    Object answer;
    try {
      answer = guarded.failed(target, args, failure);
    } catch (Throwable passedOn) {
      return mono ? Mono.error(passedOn) : Flux.error(passedOn);
    }
    if (guarded.returns == ReturnKind.FLOW && KotlinFlows.isFlow(answer)) {
      return KotlinFlows.asFlux(answer);
    }
    if (answer instanceof Publisher<?> publisher) {
      return mono ? Mono.from(uncheckedPublisher(publisher)) : Flux.from(uncheckedPublisher(publisher));
    }
    if (answer == null) {
      return mono ? Mono.empty() : Flux.empty();
    }
    return mono ? Mono.just(answer) : Flux.just(answer);
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
   * Subscribes {@code actual} to {@code source} guarded by one {@link GuardedSubscriber}, or, when
   * the entry is refused (or a slot failed), answers {@code actual} with what the handlers make of
   * it, else with the error.
   */
  private static <T> void subscribeGuarded(Publisher<? extends T> source, GuardedMethod.Bound bound,
      GuardedMethod guarded, @Nullable Object target, Object[] args, CoreSubscriber<? super T> actual, boolean mono) {
    Context reactor = actual.currentContext();
    Entry entry;
    try {
      entry = enter(bound, guarded, args, reactor);
    } catch (RuntimeException | Error refusedOrFailed) { // a BlockException, or a slot's failure
      if (refusedOrFailed instanceof BlockException refused) {
        bound.observer.get().refused(refused, reactor.getOrDefault(RefusalObserver.OBSERVATION_KEY, null));
      }
      if (guarded.hasHandlers()) {
        // nothing was subscribed yet: the subscriber subscribes to the handlers' answer instead
        ReactorCalls.<T>uncheckedAnswer(handled(guarded, target, args, refusedOrFailed, mono)).subscribe(actual);
      } else {
        Operators.error(actual, refusedOrFailed);
      }
      return;
    }
    Settlement settlement = guarded.settlement;
    GuardedSubscriber<T> subscriber = settlement != null
        ? new SettledSubscriber<>(actual, entry, guarded, mono, target, args, settlement)
        : guarded.hasHandlers()
            ? new HandledSubscriber<>(actual, entry, guarded, mono, target, args)
            : new GuardedSubscriber<>(actual, entry, guarded, mono);
    try {
      source.subscribe(subscriber);
    } catch (Throwable failure) {
      entry.close();
      Operators.reportThrowInSubscribe(actual, failure);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> Publisher<T> uncheckedAnswer(Publisher<Object> answer) {
    return (Publisher<T>) answer;
  }

  /**
   * Takes the entry of one subscription, as the subscriber's Reactor context says
   * ({@link ReactiveEntries}).
   *
   * @throws BlockException when a rule refuses it
   */
  private static Entry enter(GuardedMethod.Bound bound, GuardedMethod guarded, Object[] args, Context reactor) {
    return ReactiveEntries.asyncEntry(bound.weir, bound.resource, guarded.entryType, guarded.permits,
        guarded.criticality, args, reactor);
  }

  /** A guarded {@code Mono}: one entry per subscription. */
  static final class GuardedMono<T> extends MonoOperator<T, T> {
    private final GuardedMethod.Bound bound;
    private final GuardedMethod guarded;
    private final @Nullable Object target;
    private final Object[] args;

    GuardedMono(Mono<? extends T> source, GuardedMethod.Bound bound, GuardedMethod guarded, @Nullable Object target,
        Object[] args) {
      super(source);
      this.bound = bound;
      this.guarded = guarded;
      this.target = target;
      this.args = args;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
      subscribeGuarded(source, bound, guarded, target, args, actual, true);
    }
  }

  /** A guarded {@code Flux}: one entry per subscription. */
  static final class GuardedFlux<T> extends FluxOperator<T, T> {
    private final GuardedMethod.Bound bound;
    private final GuardedMethod guarded;
    private final @Nullable Object target;
    private final Object[] args;

    GuardedFlux(Flux<? extends T> source, GuardedMethod.Bound bound, GuardedMethod guarded, @Nullable Object target,
        Object[] args) {
      super(source);
      this.bound = bound;
      this.guarded = guarded;
      this.target = target;
      this.args = args;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
      subscribeGuarded(source, bound, guarded, target, args, actual, false);
    }
  }

  /**
   * The one object of a subscription: the subscriber of the method's publisher and the subscription
   * that the downstream subscriber sees. Passes every signal through unchanged, and closes the
   * subscription's entry exactly once ({@link Entry#close()} and {@link Entry#cancel()} are
   * idempotent together, whichever thread signals): before passing on a complete or an error
   * (recorded first when traced), a {@code Mono}'s value, or a cancel. A cancel after a {@code Flux}'s
   * first value closes the entry (the resource answered: {@code take(n)} ends a stream this way); a
   * cancel before any value (a disposed subscription, a {@code timeout} downstream) cancels it:
   * nothing is known of the call. A method with handlers has a {@link HandledSubscriber} instead,
   * one with a {@code settle} expression a {@link SettledSubscriber}.
   */
  static class GuardedSubscriber<T> implements CoreSubscriber<T>, Subscription {
    final CoreSubscriber<? super T> actual;
    final Entry entry;
    final GuardedMethod guarded;
    final boolean closeOnValue;
    @Nullable Subscription upstream;
    /** A value was passed on; read by a cancel, which may come from another thread. */
    private volatile boolean answered;

    GuardedSubscriber(CoreSubscriber<? super T> actual, Entry entry, GuardedMethod guarded, boolean closeOnValue) {
      this.actual = actual;
      this.entry = entry;
      this.guarded = guarded;
      this.closeOnValue = closeOnValue;
    }

    @Override
    public final Context currentContext() {
      return actual.currentContext();
    }

    @Override
    public final void onSubscribe(Subscription subscription) {
      if (Operators.validate(upstream, subscription)) {
        upstream = subscription;
        actual.onSubscribe(this);
      }
    }

    @Override
    public void onNext(T value) {
      arrived(value);
      if (closeOnValue) {
        entry.close();
      } else if (!answered) {
        answered = true;
      }
      actual.onNext(value);
    }

    /** Told of each value before the entry may close on it; nothing here (see {@link SettledSubscriber}). */
    void arrived(T value) {
    }

    /** Told of the complete before the entry closes; nothing here (see {@link SettledSubscriber}). */
    void completing() {
    }

    @Override
    public void onError(Throwable failure) {
      closeFailed(failure);
      actual.onError(failure);
    }

    /** Closes the entry of a call that ended with {@code failure}, recorded first when traced. */
    final void closeFailed(Throwable failure) {
      if (guarded.traces(failure)) {
        entry.recordError(failure);
      }
      entry.close();
    }

    @Override
    public final void onComplete() {
      completing();
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

  /**
   * The guarding subscriber of a method with handlers: an error goes to them after the entry is
   * closed, and the downstream subscriber then receives what they answer (a {@link Fallback}
   * subscribed to it) in place of the error, with the demand it has left.
   */
  static class HandledSubscriber<T> extends GuardedSubscriber<T> {

    /*
     * Demand across the switch to the handlers' answer. The downstream may request from any thread
     * while the error's thread switches, once. requested is the downstream's demand so far (capped
     * at Long.MAX_VALUE) while the method's publisher serves it, and SWITCHED once the answer does.
     * A request either adds to it by a CAS and then asks the method's publisher (a request that
     * lands after that publisher ended is ignored there, and its amount is in what the switch reads),
     * or finds SWITCHED and asks the answer's subscription, which was published before SWITCHED was
     * set. The switch sets SWITCHED with one getAndSet and asks the answer for what was requested less
     * what was delivered: no demand is lost and none is asked twice. A cancel and the switch each
     * write their own field before reading the other's, so at least one of them cancels the answer.
     */
    private static final long SWITCHED = Long.MIN_VALUE;
    @SuppressWarnings("rawtypes")
    private static final AtomicLongFieldUpdater<HandledSubscriber> REQUESTED =
        AtomicLongFieldUpdater.newUpdater(HandledSubscriber.class, "requested");

    private final @Nullable Object target;
    final Object[] args;
    private volatile long requested;
    /** Values passed on from the method's publisher; written and read by its signals only. */
    private long produced;
    /** The subscription of the handlers' answer, once an error was answered. */
    private volatile @Nullable Subscription fallback;
    private volatile boolean cancelled;

    HandledSubscriber(CoreSubscriber<? super T> actual, Entry entry, GuardedMethod guarded, boolean closeOnValue,
        @Nullable Object target, Object[] args) {
      super(actual, entry, guarded, closeOnValue);
      this.target = target;
      this.args = args;
    }

    @Override
    public void onNext(T value) {
      produced++;
      super.onNext(value);
    }

    @Override
    public void onError(Throwable failure) {
      closeFailed(failure);
      if (!cancelled) {
        ReactorCalls.<T>uncheckedAnswer(handled(guarded, target, args, failure, closeOnValue))
            .subscribe(new Fallback<T>(this));
      }
    }

    @Override
    public void request(long n) {
      if (n > 0) {
        for (;;) {
          long current = requested;
          if (current == SWITCHED) {
            Subscription answer = fallback;
            if (answer != null) {
              answer.request(n);
            }
            return;
          }
          long next = current + n < 0 ? Long.MAX_VALUE : current + n;
          if (REQUESTED.compareAndSet(this, current, next)) {
            break;
          }
        }
      }
      super.request(n);
    }

    /** The handlers' answer subscribed: it serves what the downstream requested and was not delivered. */
    void switchTo(Subscription answer) {
      fallback = answer;
      if (cancelled) {
        answer.cancel();
        return;
      }
      long demand = REQUESTED.getAndSet(this, SWITCHED);
      long left = demand == Long.MAX_VALUE ? Long.MAX_VALUE : demand - produced;
      if (left > 0) {
        answer.request(left);
      }
    }

    @Override
    public void cancel() {
      cancelled = true;
      Subscription answer = fallback;
      if (answer != null) {
        answer.cancel(); // the entry was closed at the error
        return;
      }
      super.cancel();
    }
  }

  /**
   * The guarding subscriber of a method with a {@code settle} expression (and its handlers, if any:
   * without them an error goes through {@link GuardedMethod#failed}, which passes it on as it came).
   * The entry is settled before it is closed: a {@code Mono} on its value (an empty one on its
   * complete, with a null result: the estimate stays), a {@code Flux} on its complete, with its last
   * value, of which only the reference is kept (one field, overwritten: no buffer however long the
   * stream). An error or a cancel settles nothing: the estimate stays. A subclass of its own, so that
   * the subscriptions of other methods carry none of its fields.
   */
  static final class SettledSubscriber<T> extends HandledSubscriber<T> {
    private final Settlement settlement;
    /** A Mono's value came; written and read by the publisher's signals only (serial). */
    private boolean valued;
    /** A Flux's last value; written and read by the publisher's signals only (serial). */
    private @Nullable Object last;

    SettledSubscriber(CoreSubscriber<? super T> actual, Entry entry, GuardedMethod guarded, boolean closeOnValue,
        @Nullable Object target, Object[] args, Settlement settlement) {
      super(actual, entry, guarded, closeOnValue, target, args);
      this.settlement = settlement;
    }

    @Override
    void arrived(T value) {
      if (!closeOnValue) {
        last = value;
      } else if (!valued) {
        valued = true;
        settlement.settle(entry, args, value);
      }
    }

    @Override
    void completing() {
      if (!(closeOnValue && valued)) {
        settlement.settle(entry, args, last); // a Flux's last value; an empty Mono's (or Flux's) null
        last = null;
      }
    }
  }

  /** Subscribed to the handlers' answer to an error: passes its signals on to the downstream subscriber. */
  static final class Fallback<T> implements CoreSubscriber<T> {
    private final HandledSubscriber<T> parent;

    Fallback(HandledSubscriber<T> parent) {
      this.parent = parent;
    }

    @Override
    public Context currentContext() {
      return parent.actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription subscription) {
      parent.switchTo(subscription);
    }

    @Override
    public void onNext(T value) {
      parent.actual.onNext(value);
    }

    @Override
    public void onError(Throwable failure) {
      parent.actual.onError(failure);
    }

    @Override
    public void onComplete() {
      parent.actual.onComplete();
    }
  }
}
