package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.test.RuleInputs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Fuzzes the readers of the rule file (YAML and JSON) and of the Sentinel files: whatever the
 * content, the outcome is rules or a list of violations, never an exception, within
 * {@link RuleInputs#BOUND}. Inputs: rule-shaped documents written as YAML and JSON, valid files
 * mutated (brackets, anchors and aliases, tags, documents, control characters), and text of any
 * sort. Seeds are fixed; tries come from junit-platform.properties.
 */
class RuleFileFuzzTests {

  private static final Weir WEIR = Weir.builder().build();
  private static final RuleFile YAML_FILE = new RuleFile(Path.of("/etc/weir/rules.yml"));
  private static final RuleFile JSON_FILE = new RuleFile(Path.of("/etc/weir/rules.json"));

  @AfterContainer
  static void close() {
    WEIR.close();
  }

  private static void read(RuleSource source, String content) {
    RuleSource.Read read = RuleInputs.answeredInTime(content,
        () -> source.read(content.getBytes(StandardCharsets.UTF_8), WEIR.rules()));
    assertThat(read.layer() == null).as("rules or violations: %s", content).isEqualTo(!read.violations().isEmpty());
  }

  @Property(seed = "2511202611")
  void aRuleShapedDocumentInYamlIsReadOrRefused(@ForAll("documents") Object document) {
    read(YAML_FILE, RuleInputs.yaml(document));
  }

  @Property(seed = "2511202612")
  void aRuleShapedDocumentInJsonIsReadOrRefused(@ForAll("documents") Object document) {
    read(JSON_FILE, RuleInputs.json(document));
  }

  @Property(seed = "2511202613")
  void aMutatedRuleFileIsReadOrRefused(@ForAll("mutatedFiles") String content) {
    read(YAML_FILE, content);
  }

  @Property(seed = "2511202614")
  void anyTextIsReadOrRefusedAsARuleFile(@ForAll("texts") String content) {
    read(YAML_FILE, content);
  }

  @Property(seed = "2511202615")
  void aRuleShapedSentinelFileIsReadOrRefused(@ForAll("ruleLists") Object rules,
      @ForAll SentinelFile.Kind kind) {
    read(new SentinelFile(kind, Path.of("/etc/sentinel/rules.json")), RuleInputs.json(rules));
  }

  @Property(seed = "2511202616")
  void aMutatedSentinelFileIsReadOrRefused(@ForAll("mutatedSentinelFiles") String content,
      @ForAll SentinelFile.Kind kind) {
    read(new SentinelFile(kind, Path.of("/etc/sentinel/rules.json")), content);
  }

  @Property(seed = "2511202617")
  void anyTextIsReadOrRefusedAsASentinelFile(@ForAll("texts") String content, @ForAll SentinelFile.Kind kind) {
    read(new SentinelFile(kind, Path.of("/etc/sentinel/rules.json")), content);
  }

  @Provide
  Arbitrary<Object> documents() {
    return RuleInputs.documents();
  }

  @Provide
  Arbitrary<Object> ruleLists() {
    return RuleInputs.ruleLists();
  }

  @Provide
  Arbitrary<String> mutatedFiles() {
    return RuleInputs.mutated(RuleInputs.validRuleFiles());
  }

  @Provide
  Arbitrary<String> mutatedSentinelFiles() {
    return RuleInputs.mutated(RuleInputs.validSentinelFiles());
  }

  @Provide
  Arbitrary<String> texts() {
    return RuleInputs.texts();
  }
}
