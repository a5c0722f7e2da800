package dev.weir.spring.actuate;

import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.test.Fuzz;
import dev.weir.spring.test.RuleInputs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzed bodies over real HTTP, to Spring MVC (Tomcat) and WebFlux (Reactor Netty): every answer is
 * 200, a 400 with violations (each a field and a reason), or (only for a body over
 * {@link InputLimits#MAX_BYTES}) 413; never a 500 or another status, within {@link RuleInputs#BOUND}.
 * Inputs: those of {@link EndpointWriteFuzzTests}, which runs many more without HTTP.
 *
 * <p>Seeded ({@link Fuzz}): default seed {@value #SEED}, {@value #TRIES} inputs per stack (a post
 * costs far more than a call); {@code -Dweir-test.fuzz.seed} and {@code -Dweir-test.fuzz.tries} for other and
 * longer runs. A failure names the seed, the try and the input.
 */
class EndpointHttpFuzzTests {

  static final long SEED = 2511202621L;
  static final int TRIES = 50;

  private static final Fuzz FUZZ = Fuzz.of(SEED, TRIES, RuleInputs.BOUND);
  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static ConfigurableApplicationContext mvc;
  private static ConfigurableApplicationContext webFlux;

  @BeforeAll
  static void start() {
    mvc = new SpringApplicationBuilder(RuleWriteTestApplication.class).run("--spring.config.name=rule-write-test",
        "--server.port=0", "--management.endpoint.weir.access=unrestricted", "--logging.level.dev.weir=WARN");
    webFlux = new SpringApplicationBuilder(ReactiveRuleWriteTestApplication.class)
        .run("--spring.config.name=rule-write-webflux-test", "--server.port=0", "--logging.level.dev.weir=WARN");
  }

  @AfterAll
  static void stop() {
    mvc.close();
    webFlux.close();
  }

  /** A body as {@link EndpointWriteFuzzTests} makes them: rule-shaped, mutated, any text, or straining the bounds. */
  private static String body(SplittableRandom random) {
    return switch (random.nextInt(4)) {
      case 0 -> RuleInputs.json(RuleInputs.document(random));
      case 1 -> RuleInputs.mutated(random, RuleInputs.validJsonBodies());
      case 2 -> RuleInputs.text(random);
      default -> RuleInputs.hostileJson(random, RuleInputs.Shape.BODY);
    };
  }

  /** Posts {@code body}; whether it was applied (200). */
  private static boolean post(ConfigurableApplicationContext server, int attempt, String body) {
    String port = server.getEnvironment().getProperty("local.server.port");
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/fuzzed"))
        .header("Content-Type", "application/json").timeout(RuleInputs.BOUND.plus(Duration.ofSeconds(5)))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<String> answer = FUZZ.answered("POST", attempt, body, () -> {
      try {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(ex);
      }
    });
    int status = answer.statusCode();
    boolean tooLarge = body.getBytes(StandardCharsets.UTF_8).length > InputLimits.MAX_BYTES;
    if (status == 413 && tooLarge || status == 200 && !tooLarge) {
      return status == 200;
    }
    if (status != 400 || tooLarge) {
      throw new AssertionError(FUZZ.describe("answered " + status + " " + answer.body(), attempt, body));
    }
    JsonNode violations = JSON.readTree(answer.body()).path("violations");
    if (!violations.isArray() || violations.isEmpty()) {
      throw new AssertionError(FUZZ.describe("a 400 without violations: " + answer.body(), attempt, body));
    }
    for (JsonNode violation : violations) {
      if (!violation.path("field").isString() || violation.path("message").asString("").isBlank()) {
        throw new AssertionError(FUZZ.describe("a violation without a field or a reason: " + violation, attempt,
            body));
      }
    }
    return false;
  }

  @Test
  void springMvcAnswers200Or400() {
    FUZZ.forEachTry(0, "bodies to Spring MVC", (attempt, random) -> post(mvc, attempt, body(random)));
  }

  @Test
  void webFluxAnswers200Or400() {
    FUZZ.forEachTry(1, "bodies to WebFlux", (attempt, random) -> post(webFlux, attempt, body(random)));
  }
}
