package dev.weir.spring.actuate;

import dev.weir.spring.test.ManualTicker;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * A web application with the {@code weir} endpoint, a clock that moves only when a test moves it,
 * a listener that keeps the audit events published, and a filter that authenticates a request
 * carrying {@code X-User} as that user (a stand-in for the application's security: the endpoint
 * reads the request's principal).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class RuleWriteTestApplication {

  @Bean
  ManualTicker ticker() {
    return new ManualTicker();
  }

  @Bean
  AuditEvents auditEvents() {
    return new AuditEvents();
  }

  @Bean
  FilterRegistrationBean<Filter> principalFromHeader() {
    Filter filter = (request, response, chain) -> {
      String user = ((HttpServletRequest) request).getHeader("X-User");
      if (user == null) {
        chain.doFilter(request, response);
        return;
      }
      chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
        @Override
        public Principal getUserPrincipal() {
          return () -> user;
        }
      }, response);
    };
    return new FilterRegistrationBean<>(filter);
  }

  /** The audit events the application published, in order. */
  static final class AuditEvents {
    final List<AuditApplicationEvent> received = new CopyOnWriteArrayList<>();

    @EventListener
    void on(AuditApplicationEvent event) {
      received.add(event);
    }
  }
}
