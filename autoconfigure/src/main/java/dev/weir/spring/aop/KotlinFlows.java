package dev.weir.spring.aop;

import kotlinx.coroutines.flow.Flow;
import kotlinx.coroutines.reactive.ReactiveFlowKt;
import kotlinx.coroutines.reactor.ReactorFlowKt;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * Kotlin {@code Flow} to and from Reactor, for the methods returning a {@code Flow}. Loaded only when
 * such a method is called, so only with kotlinx-coroutines-reactor present (checked at start by
 * {@link ReturnKind#unsupported}).
 *
 * <p>A collection of the returned flow subscribes to the guarded {@code Flux} once: the entry is
 * taken then and released when the collection completes, fails or is cancelled. The collector's
 * Reactor context (a {@code ReactorContext} element of its coroutine context) is the subscription's,
 * so a criticality or an origin it carries is the entry's.
 */
final class KotlinFlows {

  private KotlinFlows() {
  }

  static boolean isFlow(@Nullable Object value) {
    return value instanceof Flow<?>;
  }

  @SuppressWarnings("unchecked")
  static Flux<Object> asFlux(Object flow) {
    return ReactorFlowKt.asFlux((Flow<Object>) flow);
  }

  static Flow<Object> asFlow(Publisher<Object> publisher) {
    return ReactiveFlowKt.asFlow(publisher);
  }
}
