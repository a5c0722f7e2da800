package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.RuleInputs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A handful of fuzzed bodies over real HTTP, to Spring MVC (Tomcat) and WebFlux (Reactor Netty):
 * every answer is 200 or a 400 with violations, never a 500 or another status, within
 * {@link RuleInputs#BOUND}. ({@link EndpointWriteFuzzTests} runs many more without HTTP.)
 */
class EndpointHttpFuzzTests {

  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private static ConfigurableApplicationContext mvc;
  private static ConfigurableApplicationContext webFlux;

  @BeforeContainer
  static void start() {
    mvc = new SpringApplicationBuilder(RuleWriteTestApplication.class).run("--spring.config.name=rule-write-test",
        "--server.port=0", "--management.endpoint.weir.access=unrestricted", "--logging.level.dev.weir=WARN");
    webFlux = new SpringApplicationBuilder(ReactiveRuleWriteTestApplication.class)
        .run("--spring.config.name=rule-write-webflux-test", "--server.port=0", "--logging.level.dev.weir=WARN");
  }

  @AfterContainer
  static void stop() {
    mvc.close();
    webFlux.close();
  }

  private static void post(ConfigurableApplicationContext server, String body) {
    String port = server.getEnvironment().getProperty("local.server.port");
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/fuzzed"))
        .header("Content-Type", "application/json").timeout(RuleInputs.BOUND.plus(Duration.ofSeconds(5)))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<String> answer = RuleInputs.answeredInTime(body, () -> {
      try {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (Exception ex) {
        throw new IllegalStateException(ex);
      }
    });
    assertThat(answer.statusCode()).as("%s -> %s", body, answer.body()).isIn(200, 400);
    if (answer.statusCode() == 400) {
      assertThat(answer.body()).as(body).contains("\"violations\":[{\"field\":");
    }
  }

  @Property(tries = 25, seed = "2511202621")
  void springMvcAnswers200Or400(@ForAll("bodies") String body) {
    post(mvc, body);
  }

  @Property(tries = 25, seed = "2511202622")
  void webFluxAnswers200Or400(@ForAll("bodies") String body) {
    post(webFlux, body);
  }

  @Provide
  Arbitrary<String> bodies() {
    return Arbitraries.oneOf(RuleInputs.documents().map(RuleInputs::json),
        RuleInputs.mutated(RuleInputs.validJsonBodies()), RuleInputs.texts());
  }
}
