package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.RuleRegistry;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.rules.RuleSources;
import dev.weir.spring.test.Fuzz;
import dev.weir.spring.test.RuleInputs;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fuzzes the reader of the rules store's documents, which anyone with access to Redis may write:
 * whatever a version's bytes are, the instance's applier ({@link FleetRules#applier}, on the
 * application's real engine and rule sources) puts them in force or refuses them with a reason
 * ({@link FleetSync.Refused}), never anything else, within {@link RuleInputs#BOUND} of CPU time.
 * Inputs: rule-shaped documents with hostile names and values, valid documents mutated and cut
 * short, text of any sort, and documents that strain the bounds.
 *
 * <p>Seeded ({@link Fuzz}): default seed {@value #SEED}, {@value #TRIES} inputs per test;
 * {@code -Dweir-test.fuzz.seed} and {@code -Dweir-test.fuzz.tries} for other and longer runs.
 */
class FleetDocumentFuzzTests {

  static final long SEED = 2811202640L;
  static final int TRIES = 400;

  private static final Fuzz FUZZ = Fuzz.of(SEED, TRIES, RuleInputs.BOUND);

  private static ConfigurableApplicationContext context;
  private static FleetSync.Applier applier;
  private static RuleRegistry registry;

  @BeforeAll
  static void start() {
    context = new SpringApplicationBuilder(RuleWriteTestApplication.class).web(WebApplicationType.NONE)
        .run("--spring.config.name=rule-write-test", "--logging.level.dev.weir=WARN");
    registry = context.getBean(Weir.class).rules();
    applier = FleetRules.applier(registry, context.getBean(RuleSources.class), false);
  }

  @AfterAll
  static void stop() {
    context.close();
  }

  /** A version's document; the outcome of applying it: whether it was applied. */
  private static boolean apply(int attempt, String document) {
    byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
    String outcome = FUZZ.answered("apply", attempt, document, () -> {
      try {
        applier.apply(attempt + 1, bytes);
        return "applied";
      } catch (FleetSync.Refused refused) {
        return "refused: " + refused.getMessage();
      }
    });
    if (outcome.startsWith("refused: ")) {
      if (outcome.substring("refused: ".length()).isBlank() || outcome.equals("refused: null")) {
        throw new AssertionError(FUZZ.describe("refused without a reason", attempt, document));
      }
      return false;
    }
    if (bytes.length > InputLimits.MAX_BYTES) {
      throw new AssertionError(FUZZ.describe("applied at " + bytes.length + " bytes", attempt, document));
    }
    return true;
  }

  private static String storeDocument(Object rulesOfOneResource) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("updatedAt", "2026-11-28T22:00:00Z");
    document.put("updatedBy", "fuzz");
    Map<String, Object> rules = new LinkedHashMap<>();
    rules.put("fuzzed", rulesOfOneResource);
    document.put("rules", rules);
    return RuleInputs.json(document);
  }

  private static List<String> validDocuments() {
    return RuleInputs.validJsonBodies().stream()
        .map(body -> "{\"updatedAt\": \"2026-11-28T22:00:00Z\", \"updatedBy\": \"fuzz\", \"change\": \"-\", "
            + "\"rules\": {\"fuzzed\": " + body + "}}")
        .toList();
  }

  @Test
  void aRuleShapedDocumentIsAppliedOrRefused() {
    FUZZ.forEachTry(0, "rule-shaped store documents", (attempt, random) -> apply(attempt,
        storeDocument(RuleInputs.document(random))));
  }

  @Test
  void aMutatedOrTruncatedDocumentIsAppliedOrRefused() {
    assertThat(FUZZ.forEachTry(1, "mutated and truncated store documents", (attempt, random) -> {
      String mutated = RuleInputs.mutated(random, validDocuments());
      return apply(attempt, random.nextInt(4) == 0 ? mutated.substring(0, random.nextInt(mutated.length() + 1))
          : mutated);
    })).as("some mutations stay valid").isPositive();
  }

  @Test
  void anyTextIsAppliedOrRefused() {
    FUZZ.forEachTry(2, "any text", (attempt, random) -> apply(attempt, RuleInputs.text(random)));
  }

  @Test
  void aDocumentStrainingTheBoundsIsRefusedOrApplied() {
    FUZZ.forEachTry(3, "store documents straining the bounds", (attempt, random) -> apply(attempt,
        "{\"rules\": {\"fuzzed\": " + RuleInputs.hostileJson(random, RuleInputs.Shape.BODY) + "}}"));
  }

  @Test
  void aDocumentOfManyResourcesOrOverTheLimitIsRefusedWholeNamingWhy() {
    StringBuilder many = new StringBuilder("{\"rules\": {");
    for (int i = 0; i < InputLimits.MAX_WRITE_ENTRIES + 1; i++) {
      many.append(i == 0 ? "" : ",").append("\"r").append(i).append("\": {\"flow\": []}");
    }
    many.append("}}");
    assertThat(apply(0, many.toString())).isFalse();
    String large = "{\"rules\": {\"fuzzed\": {\"flow\": [{\"count\": 1, \"name\": \""
        + "x".repeat(InputLimits.MAX_BYTES) + "\"}]}}}";
    assertThat(apply(1, large)).isFalse();
    String deep = "{\"rules\": " + "[".repeat(10_000) + "]".repeat(10_000) + "}";
    assertThat(apply(2, deep)).isFalse();
    assertThat(apply(3, "{\"rules\": {\"fuzzed\": {\"flow\": [{\"count\": 5}]}}, \"extra\": 1}")).isFalse();
    // Nothing half-applied: one bad resource among good ones refuses the whole version.
    double before = registry.rules("good").flow().isEmpty() ? -1 : registry.rules("good").flow().get(0).count();
    assertThat(apply(4, "{\"rules\": {\"good\": {\"flow\": [{\"count\": 77}]}, \"fuzzed\": {\"flow\": "
        + "[{\"count\": -1}]}}}")).isFalse();
    assertThat(registry.rules("good").flow().isEmpty() ? -1 : registry.rules("good").flow().get(0).count())
        .isEqualTo(before);
    assertThat(apply(5, "{\"rules\": {\"good\": {\"flow\": [{\"count\": 77}]}}}")).isTrue();
    assertThat(registry.rules("good").flow().get(0).count()).isEqualTo(77);
  }
}
