package dev.weir.spring.reactive;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.web.CriticalityClaim;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Takes the asynchronous entry of a call that runs in a reactive chain or a coroutine, as the chain's
 * Reactor context says it is made: the one home of that rule, used by guarded {@code Mono}s and
 * {@code Flux}es, Kotlin suspend functions, and weir-kotlin's {@code guard}. Loaded only where
 * Reactor is on the classpath.
 *
 * <ul>
 *   <li>In the {@link ReactiveContext} under {@code ReactiveContext.class}, when there is one (its
 *       name and origin); else in the context of the calling thread.
 *   <li>Its criticality is the {@link Criticality} under {@code Criticality.class} when there is one
 *       (written into the chain, it wins); else the call's own, lowered by the request's claim under
 *       {@code CriticalityClaim.class}, or by the calling thread's claim when the chain has none.
 * </ul>
 */
public final class ReactiveEntries {

  private ReactiveEntries() {
  }

  /**
   * Takes the entry of one call of {@code resource}, released by the caller exactly once.
   *
   * @param weir the engine of {@code resource}, for entering the chain's context
   * @param resource the resource's handle
   * @param type inbound or outbound
   * @param permits the permits the call takes
   * @param own the call's own criticality (an annotation's, a caller's)
   * @param args the call's arguments, for per-key rules
   * @param reactor the Reactor context of the chain or coroutine
   * @return the open entry
   * @throws BlockException when a rule refuses the call
   */
  public static Entry asyncEntry(Weir weir, Resource resource, EntryType type, int permits, Criticality own,
      @Nullable Object @Nullable [] args, ContextView reactor) {
    ReactiveContext context = reactor.getOrDefault(ReactiveContext.class, null);
    Criticality given = reactor.getOrDefault(Criticality.class, null);
    if (context == null) {
      // the calling thread's context; a criticality written into the chain is the call's own then,
      // which a context of that thread that gives one would still override
      return resource.asyncEntry(type, permits, given != null ? given : claimed(own, reactor), args);
    }
    if (given != null) {
      return weir.callInContext(context.name(), context.origin(), given,
          () -> resource.asyncEntry(type, permits, given, args));
    }
    Criticality claimed = claimed(own, reactor);
    return weir.callInContext(context.name(), context.origin(),
        () -> resource.asyncEntry(type, permits, claimed, args));
  }

  /** {@code own}, lowered by the claim of the Reactor context, else the thread's. */
  private static Criticality claimed(Criticality own, ContextView reactor) {
    Criticality claim = reactor.getOrDefault(CriticalityClaim.class, null);
    return CriticalityClaim.bound(own, claim != null ? claim : CriticalityClaim.current());
  }
}
