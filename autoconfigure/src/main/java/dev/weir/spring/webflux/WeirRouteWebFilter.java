package dev.weir.spring.webflux;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Quota;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.reactive.ReactiveEntries;
import dev.weir.spring.web.CriticalityClaim;
import dev.weir.spring.web.RateLimitHeaders;
import dev.weir.spring.web.RequestView;
import dev.weir.spring.web.Route;
import java.security.Principal;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Guards the requests that a route of {@code weir.web.routes} matches (the first that does) as the
 * route's resource, before any handler runs: an inbound ({@link EntryType#IN}) asynchronous call
 * taking the route's permits, in the request's {@link ReactiveContext} (its origin), with a
 * {@link RequestView} of the request and the principal's name (null when unauthenticated, read from
 * {@link ServerWebExchange#getPrincipal()} without blocking) as the call's arguments:
 * {@code #request} and {@code #principal} in key expressions, never the live request. A refusal
 * is an error signal, answered by {@link BlockWebExceptionHandler} as any refusal; an admitted
 * request goes on, with the {@code RateLimit-Policy} and {@code RateLimit} headers when they are
 * on. The call lasts until the rest of the chain completes, fails (a failed call) or is cancelled
 * (the client went away: an {@linkplain Entry#cancel() entry cancelled}, with no outcome for circuit
 * breakers). Requests no route matches pass untouched and create no resource. A refusal is told to
 * the {@link RefusalObserver} with the observation of the request's Reactor context (with
 * Micrometer, an event of the request's observation). The call is {@link Criticality#CRITICAL},
 * lowered by the request's claim ({@link CriticalityClaim} in the Reactor context); a
 * {@code Criticality} under {@code Criticality.class} there, written by a filter before, wins.
 */
public final class WeirRouteWebFilter implements WebFilter, Ordered {

  /** The filter's default order: just inside {@link WeirContextWebFilter}, whose context it reads. */
  public static final int DEFAULT_ORDER = WeirContextWebFilter.DEFAULT_ORDER + 1;

  /**
   * The exchange attribute set when a route's refusal was answered with the route's own quotas,
   * which {@link BlockWebExceptionHandler} then keeps.
   */
  static final String QUOTAS_WRITTEN = WeirRouteWebFilter.class.getName() + ".QUOTAS_WRITTEN";

  private static final Object NO_PRINCIPAL = new Object();

  private final Weir weir;
  private final List<Route> routes;
  /**
   * The engine's handle on each route's resource, by the route's index, resolved on the route's
   * first request (so that a route no request matched creates no resource) and kept. Written
   * without synchronisation: two first requests may both resolve one, handles of the same resource,
   * and a handle is immutable, so any thread that reads one sees it whole.
   */
  private final Resource[] handles;
  private final boolean rateLimitHeaders;
  private final RefusalObserver observer;

  /**
   * Creates the filter.
   *
   * @param weir the engine
   * @param routes the routes, in order
   * @param rateLimitHeaders whether to write the {@code RateLimit} headers
   */
  public WeirRouteWebFilter(Weir weir, List<Route> routes, boolean rateLimitHeaders) {
    this(weir, routes, rateLimitHeaders, RefusalObserver.none());
  }

  /**
   * Creates the filter.
   *
   * @param weir the engine
   * @param routes the routes, in order
   * @param rateLimitHeaders whether to write the {@code RateLimit} headers
   * @param observer told of each refusal
   */
  public WeirRouteWebFilter(Weir weir, List<Route> routes, boolean rateLimitHeaders, RefusalObserver observer) {
    this.observer = observer;
    this.weir = weir;
    this.routes = List.copyOf(routes);
    this.handles = new Resource[this.routes.size()];
    this.rateLimitHeaders = rateLimitHeaders;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest request = exchange.getRequest();
    int at = Route.indexOfFirst(routes, request.getPath().pathWithinApplication(), request.getMethod().name(),
        name -> request.getHeaders().getFirst(name));
    if (at < 0) {
      return chain.filter(exchange);
    }
    Route route = routes.get(at);
    Resource resource = handle(at, route);
    // getPrincipal() is the exchange's own Mono (Spring Security's context, when present): no blocking.
    return exchange.getPrincipal().mapNotNull(Principal::getName).cast(Object.class).defaultIfEmpty(NO_PRINCIPAL)
        .flatMap(principal -> new RouteCall(this, exchange, chain, route, resource,
            principal == NO_PRINCIPAL ? null : principal));
  }

  /**
   * The rest of the chain for one request of a route, guarded: each subscription takes the route's
   * entry (in the context its Reactor context gives) and, admitted, subscribes one {@link RouteEnd}
   * to the rest of the chain; refused, it writes the headers and signals the refusal.
   */
  private static final class RouteCall extends Mono<Void> {
    private final WeirRouteWebFilter filter;
    private final ServerWebExchange exchange;
    private final WebFilterChain chain;
    private final Route route;
    private final Resource resource;
    private final @Nullable Object principal;

    RouteCall(WeirRouteWebFilter filter, ServerWebExchange exchange, WebFilterChain chain, Route route,
        Resource resource, @Nullable Object principal) {
      this.filter = filter;
      this.exchange = exchange;
      this.chain = chain;
      this.route = route;
      this.resource = resource;
      this.principal = principal;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
      Context reactor = actual.currentContext();
      Object[] args = {new ServerRequestView(exchange.getRequest()), principal};
      ReactiveContext context = reactor.getOrDefault(ReactiveContext.class, null);
      Entry entry;
      try {
        // in the request's context, CRITICAL lowered by its claim, as any reactive call
        entry = ReactiveEntries.asyncEntry(filter.weir, resource, EntryType.IN, route.permits(), Criticality.CRITICAL,
            args, reactor);
      } catch (BlockException refused) {
        filter.observer.refused(refused, reactor.getOrDefault(RefusalObserver.OBSERVATION_KEY, null));
        if (filter.rateLimitHeaders) {
          List<Quota> quotas = filter.quotas(resource, args, context);
          RateLimitHeaders.write(quotas, exchange.getResponse().getHeaders()::set);
          if (!quotas.isEmpty()) {
            exchange.getAttributes().put(QUOTAS_WRITTEN, Boolean.TRUE);
          }
        }
        Operators.error(actual, refused);
        return;
      } catch (RuntimeException | Error failed) { // a slot's failure
        Operators.error(actual, failed);
        return;
      }
      Mono<Void> rest;
      try {
        if (filter.rateLimitHeaders) {
          RateLimitHeaders.write(filter.quotas(resource, args, context), exchange.getResponse().getHeaders()::set);
        }
        rest = chain.filter(exchange);
      } catch (RuntimeException | Error failed) {
        entry.recordError(failed);
        entry.close();
        Operators.error(actual, failed);
        return;
      }
      rest.subscribe(new RouteEnd(actual, entry));
    }
  }

  /**
   * The one subscriber of the rest of the chain, and the subscription its subscriber sees: passes
   * every signal on, and ends the route's call first, exactly once ({@link Entry#close()} and
   * {@link Entry#cancel()} are idempotent together): an error is recorded and closes it, a completion
   * closes it, a cancel (the client went away before the answer) cancels it, with no outcome. The
   * call ends before the signal goes on, so a client that has the answer finds the permit back.
   */
  private static final class RouteEnd implements CoreSubscriber<Void>, Subscription {
    private final CoreSubscriber<? super Void> actual;
    private final Entry entry;
    private @Nullable Subscription upstream;

    RouteEnd(CoreSubscriber<? super Void> actual, Entry entry) {
      this.actual = actual;
      this.entry = entry;
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
    public void onNext(Void value) {
      actual.onNext(value);
    }

    @Override
    public void onError(Throwable failure) {
      entry.recordError(failure);
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
      } finally {
        entry.cancel(); // no outcome; nothing when the call ended already
      }
    }
  }

  /** The handle on the resource of route {@code at}, resolved on its first request. */
  private Resource handle(int at, Route route) {
    Resource handle = handles[at];
    if (handle == null) {
      handle = weir.resource(route.resource());
      handles[at] = handle;
    }
    return handle;
  }

  private List<Quota> quotas(Resource resource, Object[] args, ReactiveContext context) {
    return context == null ? resource.quotas(args)
        : weir.callInContext(context.name(), context.origin(), () -> resource.quotas(args));
  }

  @Override
  public int getOrder() {
    return DEFAULT_ORDER;
  }
}
