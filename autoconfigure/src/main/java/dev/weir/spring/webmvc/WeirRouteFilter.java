package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Quota;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.web.CriticalityClaim;
import dev.weir.spring.web.RateLimitHeaders;
import dev.weir.spring.web.RequestView;
import dev.weir.spring.web.Route;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.RequestPath;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Guards the requests that a route of {@code weir.web.routes} matches (the first that does) as the
 * route's resource, before any controller runs: an inbound ({@link EntryType#IN}) call taking the
 * route's permits, with a {@link RequestView} of the request and the principal's name (null when
 * unauthenticated) as the call's arguments: {@code #request} and {@code #principal} in key
 * expressions, never the live request. A refused request is answered by the
 * {@link BlockResponseFactory}, as a refusal escaping a controller would be; an admitted one goes
 * on, with the {@code RateLimit-Policy} and {@code RateLimit} headers when they are on.
 *
 * <p>The call lasts until the response is complete: for an asynchronous request, until its async
 * processing completes, times out or fails. It failed when an exception escapes the filter chain,
 * or when Spring MVC handled one ({@link DispatcherServlet#EXCEPTION_ATTRIBUTE}), other than a
 * refusal of a guarded method inside it. Requests no route matches pass untouched and create no
 * resource. A refusal is told to the {@link RefusalObserver} (with Micrometer, an event of the
 * request's observation, which Spring's observation filter opened on this thread). The call is
 * {@link Criticality#CRITICAL}, or lower when the request claims a lower one ({@link CriticalityClaim}).
 */
public final class WeirRouteFilter extends OncePerRequestFilter {

  /** The filter's default order: just inside {@link WeirContextFilter}, so routes see the request's origin. */
  public static final int DEFAULT_ORDER = WeirContextFilter.DEFAULT_ORDER + 1;

  private final Weir weir;
  private final List<Route> routes;
  /**
   * The engine's handle on each route's resource, by the route's index, resolved on the route's
   * first request (so that a route no request matched creates no resource) and kept. Written
   * without synchronisation: two first requests may both resolve one, handles of the same resource,
   * and a handle is immutable, so any thread that reads one sees it whole.
   */
  private final Resource[] handles;
  private final BlockResponseFactory responses;
  private final Supplier<List<HttpMessageConverter<?>>> converters;
  private final boolean rateLimitHeaders;
  private final RefusalObserver observer;

  /**
   * Creates the filter.
   *
   * @param weir the engine
   * @param routes the routes, in order
   * @param responses answers refused requests
   * @param converters the message converters for answers other than problems
   * @param rateLimitHeaders whether to write the {@code RateLimit} headers
   */
  public WeirRouteFilter(Weir weir, List<Route> routes, BlockResponseFactory responses,
      Supplier<List<HttpMessageConverter<?>>> converters, boolean rateLimitHeaders) {
    this(weir, routes, responses, converters, rateLimitHeaders, RefusalObserver.none());
  }

  /**
   * Creates the filter.
   *
   * @param weir the engine
   * @param routes the routes, in order
   * @param responses answers refused requests
   * @param converters the message converters for answers other than problems
   * @param rateLimitHeaders whether to write the {@code RateLimit} headers
   * @param observer told of each refusal
   */
  public WeirRouteFilter(Weir weir, List<Route> routes, BlockResponseFactory responses,
      Supplier<List<HttpMessageConverter<?>>> converters, boolean rateLimitHeaders, RefusalObserver observer) {
    this.observer = observer;
    this.weir = weir;
    this.routes = List.copyOf(routes);
    this.handles = new Resource[this.routes.size()];
    this.responses = responses;
    this.converters = converters;
    this.rateLimitHeaders = rateLimitHeaders;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    int at = Route.indexOfFirst(routes,
        RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication(),
        request.getMethod(), request::getHeader);
    if (at < 0) {
      chain.doFilter(request, response);
      return;
    }
    Route route = routes.get(at);
    Resource resource = handle(at, route);
    Principal principal = request.getUserPrincipal();
    Object[] args = {new ServletRequestView(request), principal == null ? null : principal.getName()};
    Entry entry;
    try {
      entry = resource.asyncEntry(EntryType.IN, route.permits(), CriticalityClaim.bound(Criticality.CRITICAL), args);
    } catch (BlockException refused) {
      observer.refused(refused);
      answer(refused, resource, args, request, response);
      return;
    }
    boolean completesLater = false;
    try {
      if (rateLimitHeaders) {
        RateLimitHeaders.write(resource.quotas(args), response::setHeader);
      }
      chain.doFilter(request, response);
      Throwable handled = failure(request);
      if (handled != null) {
        entry.recordError(handled);
      }
      if (request.isAsyncStarted()) {
        request.getAsyncContext().addListener(new Completion(entry));
        completesLater = true;
      }
    } catch (IOException | ServletException | RuntimeException | Error failed) {
      entry.recordError(failed);
      throw failed;
    } finally {
      if (!completesLater) {
        entry.close();
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

  private void answer(BlockException refused, Resource resource, Object[] args, HttpServletRequest request,
      HttpServletResponse response) throws IOException {
    // the quotas of every rate rule of the route when its limiters keep some, else the refusing rule's
    List<Quota> quotas = rateLimitHeaders ? resource.quotas(args) : List.of();
    RateLimitHeaders.write(quotas, response::setHeader);
    BlockAnswers.write(responses.create(refused, request), response, converters,
        rateLimitHeaders && quotas.isEmpty() ? refused : null);
  }

  /** The exception Spring MVC handled for this request, unless a refusal: the call failed. */
  private static @Nullable Throwable failure(HttpServletRequest request) {
    Object handled = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
    return handled instanceof Throwable failure && !(failure instanceof BlockException) ? failure : null;
  }

  @Override
  protected boolean shouldNotFilterAsyncDispatch() {
    return true; // the call began with the request and ends with its async processing
  }

  /** Ends an asynchronous request's call with its async processing. */
  private static final class Completion implements AsyncListener {
    private final Entry entry;

    Completion(Entry entry) {
      this.entry = entry;
    }

    @Override
    public void onComplete(AsyncEvent event) {
      Throwable handled = failure((HttpServletRequest) event.getSuppliedRequest());
      if (handled != null) {
        entry.recordError(handled);
      }
      entry.close();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      // onComplete follows
    }

    @Override
    public void onError(AsyncEvent event) {
      if (event.getThrowable() != null) {
        entry.recordError(event.getThrowable());
      }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      event.getAsyncContext().addListener(this); // a new async cycle: keep listening
    }
  }
}
