package dev.weir.spring.webmvc;

import dev.weir.ContextScope;
import dev.weir.Criticality;
import dev.weir.Weir;
import dev.weir.spring.web.CriticalityClaim;
import dev.weir.spring.web.WebContext;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Enumeration;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Runs each inbound HTTP request inside the Weir context {@value #CONTEXT_NAME}, with the origin
 * that the {@link OriginResolver} gives it. Calls guarded while the request is handled (on the
 * request's thread) are then attributed to that origin ({@code limit-app}), and a {@code chain}
 * rule with {@code ref-resource: weir_web_context} limits a resource only when it is called while
 * serving HTTP requests, not from scheduled jobs or message listeners.
 *
 * <p>With a criticality header ({@code weir.web.criticality-header}), the request's claim
 * ({@link CriticalityClaim}) is current on the request's thread while it is served: the calls
 * guarded meanwhile take the lower of their own criticality and the claim.
 */
public final class WeirContextFilter extends OncePerRequestFilter {

  /** The name of the context in which HTTP requests run, {@link WebContext#NAME}. */
  public static final String CONTEXT_NAME = WebContext.NAME;

  /** The filter's default order: after Spring Security's filters, so an origin can use the principal. */
  public static final int DEFAULT_ORDER = 0;

  private final Weir weir;
  private final OriginResolver originResolver;
  private final @Nullable String criticalityHeader;

  /**
   * Creates the filter, reading no criticality header.
   *
   * @param weir the engine
   * @param originResolver tells each request's origin
   */
  public WeirContextFilter(Weir weir, OriginResolver originResolver) {
    this(weir, originResolver, null);
  }

  /**
   * Creates the filter.
   *
   * @param weir the engine
   * @param originResolver tells each request's origin
   * @param criticalityHeader the request header whose value is the request's claimed criticality,
   *     or null (or blank) to read none
   */
  public WeirContextFilter(Weir weir, OriginResolver originResolver, @Nullable String criticalityHeader) {
    this.weir = weir;
    this.originResolver = originResolver;
    this.criticalityHeader = criticalityHeader == null || criticalityHeader.isBlank() ? null
        : criticalityHeader.strip();
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    try (CriticalityClaim.Scope claim = CriticalityClaim.open(claim(request));
        ContextScope scope = weir.enterContext(CONTEXT_NAME, originResolver.resolveOrigin(request))) {
      chain.doFilter(request, response);
    }
  }

  private @Nullable Criticality claim(HttpServletRequest request) {
    String header = criticalityHeader;
    if (header == null) {
      return null;
    }
    Enumeration<String> values = request.getHeaders(header);
    return values == null ? null : CriticalityClaim.parse(values.asIterator());
  }
}
