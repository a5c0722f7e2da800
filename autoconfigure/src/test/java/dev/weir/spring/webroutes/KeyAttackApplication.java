package dev.weir.spring.webroutes;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC application with routes keyed by the request and the principal, a filter that
 * authenticates a request carrying {@code X-User} as that user before Weir's filters, and a bean
 * whose method no key expression may ever call.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(KeyAttackApplication.Endpoints.class)
class KeyAttackApplication {

  @Bean
  KeySentinel keySentinel() {
    return new KeySentinel();
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
    FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }

  /** A bean a key expression reached through the application context must never call. */
  public static final class KeySentinel {
    final AtomicBoolean fired = new AtomicBoolean();

    public String fire() {
      fired.set(true);
      return "fired";
    }
  }

  @RestController
  static class Endpoints {
    @GetMapping({"/attack/{name}", "/keyed/header/{name}", "/keyed/query/{name}", "/keyed/user/{name}"})
    String answer(@PathVariable String name) {
      return name;
    }
  }
}
