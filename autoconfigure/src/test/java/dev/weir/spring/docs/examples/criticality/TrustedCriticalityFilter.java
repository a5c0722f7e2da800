package dev.weir.spring.docs.examples.criticality;

import dev.weir.ContextScope;
import dev.weir.Criticality;
import dev.weir.Weir;
import dev.weir.spring.web.CriticalityClaim;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/** The example of docs/criticality.md: trusted callers may raise their calls' criticality. */
// tag::trusted[]
class TrustedCriticalityFilter extends OncePerRequestFilter {
  private final Weir weir;

  TrustedCriticalityFilter(Weir weir) {
    this.weir = weir;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Criticality claimed = CriticalityClaim.parse(request.getHeader("X-Criticality"));
    if (claimed == null || !request.isUserInRole("INTERNAL_SERVICE")) {
      chain.doFilter(request, response);
      return;
    }
    try (ContextScope scope = weir.enterContext("internal", null, claimed)) {
      chain.doFilter(request, response);
    }
  }
}
// end::trusted[]
