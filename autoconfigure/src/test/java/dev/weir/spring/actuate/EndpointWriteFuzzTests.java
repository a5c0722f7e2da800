package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.rules.RuleSources;
import dev.weir.spring.test.Fuzz;
import dev.weir.spring.test.RuleInputs;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fuzzes the endpoint's write path without HTTP: whatever body arrives, read as both web stacks
 * read it ({@link PostedBody#read}, refused as too large over {@link InputLimits#MAX_BYTES}), turned
 * into the operation's argument ({@link PostedBody#rulesArgument}) and handed to
 * {@link WeirEndpoint#replace} of the application's real engine and rule sources, the outcome is the
 * resource afterwards or a refusal (400) with at least one violation (its field and a reason), never an
 * exception, within {@link RuleInputs#BOUND}. Inputs: rule-shaped documents with hostile names and
 * values, valid bodies mutated, text of any sort, and bodies that strain the bounds (deep nesting,
 * huge values, many rules, many and unknown fields, sizes around the limit).
 *
 * <p>Seeded ({@link Fuzz}): default seed {@value #SEED}, {@value #TRIES} inputs per test;
 * {@code -Dweir-test.fuzz.seed} and {@code -Dweir-test.fuzz.tries} for other and longer runs. A failure names
 * the seed, the try and the input. The tries of a test write one after another to the same engine,
 * so a replay runs the tries before the failing one too.
 */
class EndpointWriteFuzzTests {

  static final long SEED = 2511202601L;
  static final int TRIES = 500;

  private static final Fuzz FUZZ = Fuzz.of(SEED, TRIES, RuleInputs.BOUND);

  private static ConfigurableApplicationContext context;
  private static WeirEndpoint endpoint;

  @BeforeAll
  static void start() {
    context = new SpringApplicationBuilder(RuleWriteTestApplication.class).web(WebApplicationType.NONE)
        .run("--spring.config.name=rule-write-test", "--logging.level.dev.weir=WARN");
    endpoint = new WeirEndpoint(context.getBean(Weir.class), context.getBean(RuleSources.class), false,
        new RuleChangeLog(null));
  }

  @AfterAll
  static void stop() {
    context.close();
  }

  /** The outcome of one body: written, refused with violations, or too large (then nothing was bound). */
  private record Outcome(WeirEndpoint.@Nullable Replacement replacement) {
  }

  /** Posts {@code body}; whether it was applied. */
  private static boolean replace(int attempt, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    Outcome outcome = FUZZ.answered("replace", attempt, body, () -> {
      byte[] read;
      try {
        read = PostedBody.read(new ByteArrayInputStream(bytes));
      } catch (PostedBody.TooLargeException tooLarge) {
        return new Outcome(null);
      } catch (IOException unexpected) {
        throw new UncheckedIOException(unexpected);
      }
      return new Outcome(endpoint.replace(SecurityContext.NONE, "fuzzed",
          PostedBody.rulesArgument(read, Map.<String, List<String>>of())));
    });
    WeirEndpoint.Replacement replacement = outcome.replacement();
    if (replacement == null) {
      if (bytes.length <= InputLimits.MAX_BYTES) {
        throw new AssertionError(FUZZ.describe("refused as too large at " + bytes.length + " bytes", attempt, body));
      }
      return false;
    }
    if (bytes.length > InputLimits.MAX_BYTES) {
      throw new AssertionError(FUZZ.describe("read at " + bytes.length + " bytes", attempt, body));
    }
    if ((replacement.done() == null) == (replacement.refused() == null)) {
      throw new AssertionError(FUZZ.describe("not exactly one of done and refused: " + replacement, attempt, body));
    }
    WeirEndpoint.InvalidRulesDescriptor refused = replacement.refused();
    if (refused == null) {
      return true;
    }
    if (refused.status() != 400 || refused.violations().isEmpty()) {
      throw new AssertionError(FUZZ.describe("refused without violations or with another status than 400: "
          + refused, attempt, body));
    }
    for (RuleViolation violation : refused.violations()) {
      if (violation.message().isBlank()) {
        throw new AssertionError(FUZZ.describe("a violation without a reason: " + violation, attempt, body));
      }
    }
    return false;
  }

  @Test
  void aRuleShapedDocumentIsAppliedOrRefused() {
    FUZZ.forEachTry(0, "rule-shaped bodies", (attempt, random) -> replace(attempt,
        RuleInputs.json(RuleInputs.document(random))));
  }

  @Test
  void aMutatedBodyIsAppliedOrRefused() {
    FUZZ.forEachTry(1, "mutated bodies", (attempt, random) -> replace(attempt,
        RuleInputs.mutated(random, RuleInputs.validJsonBodies())));
  }

  @Test
  void anyTextIsAppliedOrRefused() {
    FUZZ.forEachTry(2, "any text", (attempt, random) -> replace(attempt, RuleInputs.text(random)));
  }

  @Test
  void aBodyStrainingTheBoundsIsAppliedOrRefused() {
    assertThat(FUZZ.forEachTry(3, "bodies straining the bounds", (attempt, random) -> replace(attempt,
        RuleInputs.hostileJson(random, RuleInputs.Shape.BODY))))
        .as("the generator reaches past the refusals").isGreaterThanOrEqualTo(FUZZ.tries() / 20);
  }
}
