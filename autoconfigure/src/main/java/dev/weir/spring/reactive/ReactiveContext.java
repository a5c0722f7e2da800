package dev.weir.spring.reactive;

import java.util.Objects;

/**
 * The Weir context of a reactive chain: the context name and caller origin that a guarded
 * {@code Mono} or {@code Flux} is entered in when it is subscribed. It travels in Reactor's
 * {@code Context} under the key {@code ReactiveContext.class}, because a reactive chain hops
 * between threads and a thread's context ({@link dev.weir.Weir#runInContext}) would follow the
 * thread, not the chain. WebFlux requests get one from Weir's web filter; set one yourself with
 * <pre>{@code
 * mono.contextWrite(context -> context.put(ReactiveContext.class, new ReactiveContext("batch", "partnerA")))
 * }</pre>
 * A subscription that finds none in its Reactor context is entered in the context of the thread
 * that subscribes (so {@code weir.runInContext(name, origin, () -> mono.subscribe())} works too).
 *
 * <p>A {@link dev.weir.Criticality} under the key {@code Criticality.class} in the same Reactor
 * context is the criticality of the guarded calls subscribed below it, as a context's criticality
 * is ({@code weir.enterContext(name, origin, criticality)}): it wins over
 * {@code @RateLimited(criticality)} and over a request's claim.
 * <pre>{@code
 * report.contextWrite(Context.of(Criticality.class, Criticality.SHEDDABLE))
 * }</pre>
 *
 * @param name the context name ({@code chain} rules match it)
 * @param origin the caller's identity, empty when unknown
 */
public record ReactiveContext(String name, String origin) {

  /** Checks the name and turns a null origin into the empty one. */
  public ReactiveContext {
    Objects.requireNonNull(name, "name");
    origin = origin == null ? "" : origin;
  }
}
