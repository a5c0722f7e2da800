package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.KeyExpressions;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A posted rule whose check fails instead of finding problems (here a key expression compiler that
 * throws {@code StackOverflowError} for one key, or an unchecked exception for another, installed
 * as an application may, through a {@link WeirBuilderCustomizer}) is a 400 naming the rule, over
 * real HTTP, and nothing changes: never a 500. Before, the error escaped the endpoint.
 */
@SpringBootTest(classes = {RuleWriteTestApplication.class, EndpointCheckFailureTests.FailingKeys.class},
    webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {"spring.config.name=rule-write-test", "management.endpoint.weir.access=unrestricted"})
class EndpointCheckFailureTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  /** Compiles any key to the first argument, but overflows the stack for #boom and fails for #bug. */
  @Configuration(proxyBeanMethods = false)
  static class FailingKeys {

    @Bean
    WeirBuilderCustomizer failingKeys() {
      KeyExpressions keys = (resource, expression) -> {
        if (expression.equals("#boom")) {
          throw new StackOverflowError();
        }
        if (expression.equals("#bug")) {
          throw new IllegalStateException("a bug in the compiler");
        }
        return args -> args.length > 0 ? args[0] : null;
      };
      return builder -> builder.keyExpressions(keys);
    }
  }

  private HttpResponse<String> post(String resource, String json) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aCheckThatOverflowsTheStackIsA400NamingTheRule() throws Exception {
    HttpResponse<String> answer = post("check.failing", "{\"paramFlow\": [{\"key\": \"#p0\", \"count\": 1},"
        + " {\"key\": \"#boom\", \"count\": 2}]}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    // The rule is named (param-flow[1], or its key, should the engine name the field itself), the other is not.
    assertThat(answer.body()).contains("\"field\":\"param-flow[1]").doesNotContain("\"field\":\"param-flow[0]");
    assertThat(weir.rules().rules("check.failing").paramFlow()).as("nothing changed").isEmpty();
  }

  @Test
  void aCheckThatThrowsIsA400NamingTheRule() throws Exception {
    HttpResponse<String> answer = post("check.failing", "{\"paramFlow\": [{\"key\": \"#bug\", \"count\": 2}]}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    assertThat(answer.body()).contains("\"field\":\"param-flow[0]", "a bug in the compiler");
  }

  @Test
  void aKeyThatChecksIsApplied() throws Exception {
    HttpResponse<String> answer = post("check.passing", "{\"paramFlow\": [{\"key\": \"#p0\", \"count\": 2}]}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(weir.rules().rules("check.passing").paramFlow()).hasSize(1);
  }
}
