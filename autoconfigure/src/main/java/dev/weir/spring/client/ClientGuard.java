package dev.weir.spring.client;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FlowException;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import java.net.URI;
import java.util.List;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/**
 * What the interceptor of {@code RestClient}/{@code RestTemplate} and the filter of {@code WebClient}
 * share: which route guards an outgoing request, entering its resource, and what an answer means for
 * the call and for later ones.
 *
 * <p>A matched request is an outbound ({@link EntryType#OUT}) {@linkplain Weir#asyncEntry
 * asynchronous} call of its route's resource, taking one permit, in the caller's context (its origin),
 * with an {@link OutgoingRequestView} of the request and a null principal as the call's arguments:
 * {@code #request} and {@code #principal} in key expressions. Every kind of rule applies but system
 * rules, which apply to inbound calls only. A call that is answered with a status of 500 or more is a
 * failed call ({@link ServerErrorStatus}); a 4xx is not (it is the request's fault, not a failure of
 * the other side, and would otherwise open circuit breakers on 404s).
 *
 * <p>With honour-upstream ({@code pauses} given), an answer that asks for a pause (see
 * {@link UpstreamHeaders}) pauses the resource ({@link UpstreamPauses}) for that long.
 */
public final class ClientGuard {

  private final Weir weir;
  private final List<ClientRoute> routes;
  /** One target for each route, by the route's index. */
  private final Target[] targets;
  private final @Nullable UpstreamPauses pauses;
  private final RefusalObserver observer;
  private final LongSupplier wallClock;

  /**
   * Creates the guard.
   *
   * @param weir the engine
   * @param routes the routes, in order
   * @param pauses the pauses to keep when an answer asks for one; null not to honour such answers
   * @param observer told of each refusal
   * @param wallClock this host's clock in epoch milliseconds, for a {@code Retry-After} date when the
   *     answer has no {@code Date}
   */
  public ClientGuard(Weir weir, List<ClientRoute> routes, @Nullable UpstreamPauses pauses, RefusalObserver observer,
      LongSupplier wallClock) {
    this.weir = weir;
    this.routes = List.copyOf(routes);
    this.targets = new Target[this.routes.size()];
    for (int i = 0; i < targets.length; i++) {
      targets[i] = new Target(this.routes.get(i));
    }
    this.pauses = pauses;
    this.observer = observer;
    this.wallClock = wallClock;
  }

  /** Returns the target of the route that guards a request of {@code method} (upper case) to {@code uri}, or null. */
  @Nullable Target route(URI uri, String method) {
    int at = ClientRoute.indexOfFirst(routes, uri, method);
    return at < 0 ? null : targets[at];
  }

  /**
   * A route and the engine's handle on its resource, resolved on the route's first request (so that
   * a route no request matched creates no resource) and kept. Written without synchronisation: two
   * first requests may both resolve one, handles of the same resource, and a handle is immutable, so
   * any thread that reads one sees it whole.
   */
  static final class Target {
    final ClientRoute route;
    private @Nullable Resource handle;

    Target(ClientRoute route) {
      this.route = route;
    }

    /** The route's resource name. */
    String resource() {
      return route.resource();
    }

    Resource handle(Weir weir) {
      Resource known = handle;
      if (known == null) {
        known = weir.resource(route.resource());
        handle = known;
      }
      return known;
    }
  }

  /**
   * Enters the call of a request {@code route} matched, in the calling thread's context.
   *
   * @throws BlockException when a rule (or a pause) refuses it
   */
  Entry enter(Target route, OutgoingRequestView request) {
    if (pauses != null && !pauses.slotInstalled()) { // an engine of the application's own: refused here
      FlowException paused = pauses.refusal(route.resource());
      if (paused != null) {
        throw paused;
      }
    }
    return route.handle(weir).asyncEntry(EntryType.OUT, 1, request, null);
  }

  /** The engine. */
  Weir weir() {
    return weir;
  }

  /** The observer of refusals. */
  RefusalObserver observer() {
    return observer;
  }

  /**
   * Takes in an answer of the call: a status of 500 or more marks it failed, and with honour-upstream
   * an answer that asks for a pause pauses the route's resource.
   */
  void answered(Target route, Entry entry, int status, HttpHeaders headers) {
    if (status >= 500) {
      entry.recordError(new ServerErrorStatus(route.resource(), status));
    }
    if (pauses != null) {
      long millis = UpstreamHeaders.pauseMillis(status, headers, wallClock.getAsLong());
      if (millis > 0) {
        pauses.pause(route.resource(), weir.ticker(), millis * 1_000_000L);
      }
    }
  }
}
