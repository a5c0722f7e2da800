package dev.weir.docs.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * What docs/endpoint.md says of its Spring Security snippet, over real HTTP: a VIEWER reads the
 * rules and is refused a write (403), an OPS user does both, anyone else gets 401, health is open.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "management.endpoints.web.exposure.include=health,weir", "management.endpoint.weir.access=unrestricted",
    "weir.flow[0].resource=orders", "weir.flow[0].count=10"})
class ActuatorSecurityTests {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(ActuatorSecurity.class)
  static class SecuredApplication {

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("viewer").password("{noop}v").roles("VIEWER").build(),
          User.withUsername("ops").password("{noop}o").roles("OPS").build());
    }
  }

  @LocalServerPort
  int port;

  private final HttpClient http = HttpClient.newHttpClient();

  private int status(String method, String path, String user, String password) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Content-Type", "application/json");
    if (user != null) {
      request.header("Authorization", "Basic "
          + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }
    request.method(method, method.equals("POST")
        ? HttpRequest.BodyPublishers.ofString("{\"flow\":[{\"resource\":\"orders\",\"count\":5}]}")
        : HttpRequest.BodyPublishers.noBody());
    return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void aViewerReadsAnOpsUserAlsoWritesAndNobodyElseDoesEither() throws Exception {
    assertThat(status("GET", "/actuator/health", null, null)).as("health, anonymous").isEqualTo(200);
    assertThat(status("GET", "/actuator/weir", null, null)).as("read, anonymous").isEqualTo(401);
    assertThat(status("GET", "/actuator/weir", "viewer", "v")).as("read, viewer").isEqualTo(200);
    assertThat(status("POST", "/actuator/weir/orders", "viewer", "v")).as("write, viewer").isEqualTo(403);
    assertThat(status("GET", "/actuator/weir/orders", "ops", "o")).as("read, ops").isEqualTo(200);
    assertThat(status("POST", "/actuator/weir/orders", "ops", "o")).as("write, ops").isEqualTo(200);
    assertThat(status("POST", "/actuator/weir/orders", "ops", "wrong")).as("write, bad password").isEqualTo(401);
  }
}
