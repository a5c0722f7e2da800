package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.test.Fuzz;
import dev.weir.spring.test.RuleInputs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the readers of the rule file (YAML and JSON) and of the Sentinel files: whatever the
 * content, the outcome is rules or a list of violations (each a field and a reason), never an
 * exception, within {@link RuleInputs#BOUND}. Inputs: rule-shaped documents written as YAML and JSON, valid
 * files mutated (brackets, anchors and aliases, tags, documents, control characters), text of any
 * sort, and documents that strain the input bounds (deep nesting, alias expansion, huge values,
 * many and unknown fields, sizes around the limit).
 *
 * <p>Seeded ({@link Fuzz}): default seed {@value #SEED}, {@value #TRIES} inputs per test;
 * {@code -Dweir-test.fuzz.seed} and {@code -Dweir-test.fuzz.tries} for other and longer runs. A failure names
 * the seed, the try and the input.
 */
class RuleFileFuzzTests {

  static final long SEED = 2511202611L;
  static final int TRIES = 200;

  private static final Fuzz FUZZ = Fuzz.of(SEED, TRIES, RuleInputs.BOUND);
  private static final Weir WEIR = Weir.builder().build();
  private static final RuleFile YAML_FILE = new RuleFile(Path.of("/etc/weir/rules.yml"));
  private static final RuleFile JSON_FILE = new RuleFile(Path.of("/etc/weir/rules.json"));
  private static final SentinelFile.Kind[] KINDS = SentinelFile.Kind.values();

  @AfterAll
  static void close() {
    WEIR.close();
  }

  /** Reads {@code content} with {@code source}; whether it gave rules. */
  private static boolean read(int attempt, RuleSource source, String content) {
    RuleSource.Read read = FUZZ.answered("read", attempt, content,
        () -> source.read(content.getBytes(StandardCharsets.UTF_8), WEIR.rules()));
    if ((read.layer() == null) == read.violations().isEmpty()) {
      throw new AssertionError(FUZZ.describe("not exactly one of rules and violations: " + read, attempt, content));
    }
    for (RuleViolation violation : read.violations()) {
      if (violation.message().isBlank()) {
        throw new AssertionError(FUZZ.describe("a violation without a reason: " + violation, attempt, content));
      }
    }
    return read.layer() != null;
  }

  private static SentinelFile sentinelFile(SplittableRandom random) {
    return new SentinelFile(KINDS[random.nextInt(KINDS.length)], Path.of("/etc/sentinel/rules.json"));
  }

  @Test
  void aRuleShapedDocumentInYamlIsReadOrRefused() {
    assertThat(FUZZ.forEachTry(0, "rule-shaped YAML", (attempt, random) -> read(attempt, YAML_FILE,
        RuleInputs.yaml(RuleInputs.document(random)))))
        .as("the generator reaches past the refusals").isGreaterThanOrEqualTo(FUZZ.tries() / 20);
  }

  @Test
  void aRuleShapedDocumentInJsonIsReadOrRefused() {
    assertThat(FUZZ.forEachTry(1, "rule-shaped JSON", (attempt, random) -> read(attempt, JSON_FILE,
        RuleInputs.json(RuleInputs.document(random)))))
        .as("the generator reaches past the refusals").isGreaterThanOrEqualTo(FUZZ.tries() / 20);
  }

  @Test
  void aMutatedRuleFileIsReadOrRefused() {
    FUZZ.forEachTry(2, "mutated rule files", (attempt, random) -> read(attempt, YAML_FILE,
        RuleInputs.mutated(random, RuleInputs.validRuleFiles())));
  }

  @Test
  void anyTextIsReadOrRefusedAsARuleFile() {
    FUZZ.forEachTry(3, "any text as a rule file", (attempt, random) -> read(attempt, YAML_FILE,
        RuleInputs.text(random)));
  }

  @Test
  void aRuleShapedSentinelFileIsReadOrRefused() {
    FUZZ.forEachTry(4, "rule-shaped Sentinel files", (attempt, random) -> read(attempt, sentinelFile(random),
        RuleInputs.json(RuleInputs.ruleList(random))));
  }

  @Test
  void aMutatedSentinelFileIsReadOrRefused() {
    FUZZ.forEachTry(5, "mutated Sentinel files", (attempt, random) -> read(attempt, sentinelFile(random),
        RuleInputs.mutated(random, RuleInputs.validSentinelFiles())));
  }

  @Test
  void anyTextIsReadOrRefusedAsASentinelFile() {
    FUZZ.forEachTry(6, "any text as a Sentinel file", (attempt, random) -> read(attempt, sentinelFile(random),
        RuleInputs.text(random)));
  }

  @Test
  void aRuleFileStrainingTheBoundsIsReadOrRefused() {
    FUZZ.forEachTry(7, "rule files straining the bounds", (attempt, random) -> random.nextBoolean()
        ? read(attempt, YAML_FILE, RuleInputs.hostileYaml(random))
        : read(attempt, random.nextBoolean() ? JSON_FILE : YAML_FILE,
            RuleInputs.hostileJson(random, RuleInputs.Shape.RULE_FILE)));
  }

  @Test
  void aSentinelFileStrainingTheBoundsIsReadOrRefused() {
    FUZZ.forEachTry(8, "Sentinel files straining the bounds", (attempt, random) -> read(attempt,
        sentinelFile(random), RuleInputs.hostileJson(random, RuleInputs.Shape.SENTINEL_FILE)));
  }
}
