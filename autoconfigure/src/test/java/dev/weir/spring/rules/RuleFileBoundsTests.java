package dev.weir.spring.rules;

import static dev.weir.spring.rules.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.test.CpuTime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The bounds of the rule file and the Sentinel files ({@link InputLimits}): a YAML "billion laughs",
 * nesting beyond 20 levels, an alias that contains itself and a file over 1 MiB are each refused
 * as a violation naming the file and what is over, fast; the same content within the bounds is
 * read. Each test has a timeout: before the bounds, Spring Boot's YAML loader expanded every
 * alias (it allows any number), and a billion laughs never finished.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RuleFileBoundsTests {

  private final Weir weir = Weir.builder().build();

  @TempDir
  Path dir;

  @AfterEach
  void close() {
    weir.close();
  }

  private static RuleSource.Read read(RuleSource source, String content, Weir weir) {
    return source.read(content.getBytes(StandardCharsets.UTF_8), weir.rules());
  }

  private RuleSource.Read ruleFile(String content) {
    return read(new RuleFile(Path.of("/etc/weir/rules.yml")), content, weir);
  }

  private RuleSource.Read sentinelFile(String content) {
    return read(new SentinelFile(SentinelFile.Kind.FLOW, Path.of("/etc/sentinel/flow.json")), content, weir);
  }

  /** Nine levels, each a list of nine aliases to the level before: 9^9 = 387,420,489 values expanded. */
  static String billionLaughs() {
    StringBuilder yaml = new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int level = 1; level < 9; level++) {
      String before = "*a" + (level - 1);
      yaml.append("a").append(level).append(": &a").append(level).append(" [")
          .append(String.join(", ", Collections.nCopies(9, before))).append("]\n");
    }
    return yaml.append("flow:\n  - resource: a\n    count: 1\n    limit-app: *a8\n").toString();
  }

  /**
   * Refused by the count of aliased values, before anything is expanded; and at once, by the thread's
   * CPU time, which a machine busy with other work does not stretch (an expansion of 387 million
   * values takes minutes or the heap).
   */
  @Test
  void aBillionLaughsIsRefusedBeforeItIsExpanded() {
    RuleSource.Read[] read = new RuleSource.Read[1];
    long cpu = CpuTime.least(1, () -> read[0] = ruleFile(billionLaughs()));
    assertThat(read[0].violations()).singleElement().satisfies(violation -> {
      assertThat(violation.field()).isEqualTo("file:/etc/weir/rules.yml");
      assertThat(violation.message()).isEqualTo("is not valid YAML: its aliases (*name) repeat more than "
          + InputLimits.MAX_ALIASED_VALUES + " values");
    });
    assertThat(cpu).as("refused at once, CPU ns").isLessThan(TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void moreAliasesThanTheLimitAreRefusedByTheParser() {
    StringBuilder yaml = new StringBuilder("defaults: &d {count: 1}\nflow:\n");
    for (int i = 0; i <= InputLimits.MAX_ALIASES; i++) {
      yaml.append("  - {resource: r").append(i).append(", <<: *d}\n");
    }
    assertThat(ruleFile(yaml.toString()).violations()).singleElement()
        .satisfies(violation -> assertThat(violation.message()).startsWith("is not valid YAML")
            .contains("aliases").contains(String.valueOf(InputLimits.MAX_ALIASES)));
  }

  @Test
  void aFewAliasesAndMergesStillWork() {
    RuleSource.Read read = ruleFile("""
        flow:
          - &a {resource: a, count: 5, interval: 1m}
          - {<<: *a, resource: b, count: 7}
        """);
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().rules().flow()).extracting(FlowRule::resource, FlowRule::count, FlowRule::interval)
        .containsExactly(tuple("a", 5.0, Duration.ofMinutes(1)), tuple("b", 7.0, Duration.ofMinutes(1)));
  }

  @Test
  void anAliasThatContainsItselfIsRefused() {
    assertThat(ruleFile("flow: &loop\n  - resource: a\n    count: 1\n    limit-app: *loop\n").violations())
        .singleElement().satisfies(violation -> assertThat(violation.message()).contains("contains itself"));
  }

  static String nested(int depth) {
    return "[".repeat(depth) + "1" + "]".repeat(depth);
  }

  @Test
  void nestingDeeperThanTwentyLevelsIsRefusedInEitherFile() {
    String ruleFileJson = "{\"flow\": [{\"resource\": \"a\", \"count\": 1, \"limitApp\": " + nested(50) + "}]}";
    assertThat(ruleFile(ruleFileJson).violations()).singleElement()
        .satisfies(violation -> assertThat(violation.message()).startsWith("is not valid YAML")
            .contains("Nesting Depth exceeded max " + InputLimits.MAX_DEPTH));
    String sentinelJson = "[{\"resource\": \"a\", \"count\": " + nested(50) + "}]";
    assertThat(sentinelFile(sentinelJson).violations()).singleElement().satisfies(violation -> {
      assertThat(violation.field()).isEqualTo("sentinel:flow-file /etc/sentinel/flow.json");
      assertThat(violation.message()).startsWith("is not valid JSON")
          .contains("Nesting Depth exceeded max " + InputLimits.MAX_DEPTH);
    });
    assertThat(sentinelFile("[{\"resource\": \"a\", \"count\": 1}]").violations()).isEmpty();
  }

  @Test
  void aBillionLaughsInASentinelFileIsRefusedToo() {
    String yaml = billionLaughs().replace("flow:\n  - resource: a\n    count: 1\n    limit-app: *a8\n", "");
    String asArray = "- " + yaml.replace("\n", "\n  ");
    assertThat(sentinelFile(asArray).violations()).singleElement()
        .satisfies(violation -> assertThat(violation.message()).contains("repeat more than"));
  }

  /** A valid rule file of more than 1 MiB: flow rules, each on its own lines. */
  static String validFileOver(int bytes) {
    StringBuilder yaml = new StringBuilder("flow:\n");
    for (int i = 0; yaml.length() <= bytes; i++) {
      yaml.append("  - resource: r").append(i).append("\n    count: 1\n");
    }
    return yaml.toString();
  }

  @Test
  void aFileOverOneMebibyteIsRefusedUnreadNamingTheFileAndTheLimit() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, validFileOver(InputLimits.MAX_BYTES));
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + file)
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("file:" + file.toAbsolutePath() + ": the file " + file.toAbsolutePath()
                + " is larger than 1048576 bytes (1 MiB), the most a rule file may hold"));
  }

  @Test
  // a hang guard: opening a FIFO with no writer never returns, and cannot be interrupted
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aNamedPipeWhereTheFileShouldBeIsRefusedWithoutOpeningIt() throws Exception {
    // Opening a FIFO blocks until something writes to it: at start that held the start forever.
    Path fifo = dir.resolve("rules.yml");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).isZero();
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + fifo)
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("the file " + fifo.toAbsolutePath() + " is not a regular file"));
    Path device = Files.createSymbolicLink(dir.resolve("zero.yml"), Path.of("/dev/zero"));
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + device)
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("the file " + device.toAbsolutePath() + " is not a regular file"));
  }

  @Test
  void aFileThatGrowsOverTheLimitIsRefusedByTheWatcherAndTheRulesStay() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: r0\n    count: 9\n");
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + file)
        .run(context -> {
          assertThat(count(context, "r0")).isEqualTo(9);
          replace(file, validFileOver(InputLimits.MAX_BYTES));
          await("refused", () -> status(context, file).contains("larger than 1048576 bytes (1 MiB)"));
          assertThat(count(context, "r0")).as("the rules in force stay").isEqualTo(9);
          assertThat(status(context, file)).startsWith("invalid, nothing changed: file:" + file.toAbsolutePath());
          replace(file, "flow:\n  - resource: r0\n    count: 3\n");
          await("the next valid version applied", () -> count(context, "r0") == 3);
          // the status follows the rules applied, a moment later on the watcher's thread
          await("the status", () -> status(context, file).equals("ok"));
        });
  }

  @Test
  void aFileOfExactlyTheLimitIsRead() {
    String yaml = validFileOver(InputLimits.MAX_BYTES - 200);
    yaml = yaml + "#".repeat(InputLimits.MAX_BYTES - yaml.getBytes(StandardCharsets.UTF_8).length);
    assertThat(yaml.getBytes(StandardCharsets.UTF_8)).hasSize(InputLimits.MAX_BYTES);
    RuleSource.Read read = ruleFile(yaml);
    assertThat(read.violations()).isEmpty();
    assertThat(read.layer().rules().flow()).hasSizeGreaterThan(30_000);
  }

  private static void replace(Path file, String content) throws IOException {
    Path temp = Files.createTempFile(file.getParent(), ".edit", ".tmp");
    Files.writeString(temp, content);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
  }

  private static double count(AssertableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  private static String status(AssertableApplicationContext context, Path file) {
    return context.getBean(RuleSources.class).status().get("file:" + file.toAbsolutePath());
  }
}
