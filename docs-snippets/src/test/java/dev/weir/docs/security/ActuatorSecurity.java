package dev.weir.docs.security;

// tag::security[]
import static org.springframework.security.config.Customizer.withDefaults;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

@Configuration(proxyBeanMethods = false)
class ActuatorSecurity {

  @Bean
  SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
    http.securityMatcher(EndpointRequest.toAnyEndpoint())
        .authorizeHttpRequests(requests -> requests
            .requestMatchers(EndpointRequest.to("health")).permitAll()
            .requestMatchers(PathPatternRequestMatcher.withDefaults().matcher(HttpMethod.POST, "/actuator/weir/**"))
            .hasRole("OPS")
            .requestMatchers(EndpointRequest.to("weir")).hasAnyRole("OPS", "VIEWER")
            .anyRequest().denyAll())
        .httpBasic(withDefaults())
        // curl and scripts send no CSRF token; the write is protected by authentication instead
        .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.to("weir")));
    return http.build();
  }
}
// end::security[]
