package dev.weir.spring.rules;

import static dev.weir.spring.rules.Eventually.await;
import static dev.weir.spring.rules.Eventually.settled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.spring.actuate.WeirHealthIndicator;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.actuate.WeirHealthContributorAutoConfiguration;
import dev.weir.spring.autoconfigure.metrics.WeirMetricsAutoConfiguration;
import dev.weir.spring.metrics.RuleSourceMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.util.FileSystemUtils;

/**
 * The rule file on disk with the watcher running: loaded at start over application.yml per
 * resource and kind, then edited, edited invalidly, fixed, deleted and re-created, and swapped as
 * the kubelet swaps a ConfigMap. Real files and symbolic links; no mocked file system.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuleFileWatchTests {

  @TempDir
  Path dir;

  private ApplicationContextRunner runner(Path file, String... properties) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            WeirAutoConfiguration.class, WeirMetricsAutoConfiguration.class,
            WeirHealthContributorAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + file, "weir.flow[0].resource=a", "weir.flow[0].count=5",
            "weir.degrade[0].resource=a", "weir.degrade[0].strategy=error-count", "weir.degrade[0].threshold=3")
        .withPropertyValues(properties);
  }

  private static double flowCount(AssertableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  private static void write(Path file, String content) throws IOException {
    // As editors and tools save: written aside, then renamed over the file.
    Path temp = Files.createTempFile(file.getParent(), ".edit", ".tmp");
    Files.writeString(temp, content);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
  }

  private static String status(AssertableApplicationContext context, Path file) {
    return context.getBean(RuleSources.class).status().get("file:" + file.toAbsolutePath());
  }

  private static double failures(AssertableApplicationContext context, Path file) {
    return context.getBean(MeterRegistry.class).get(RuleSourceMeterBinder.FAILURES)
        .tag("source", "file:" + file.toAbsolutePath()).functionCounter().count();
  }

  @Test
  void theFileReplacesApplicationYmlPerResourceAndKindAndIsReappliedWhenEdited() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 2\n  - resource: b\n    count: 9\n");
    runner(file).run(context -> {
      assertThat(context).hasNotFailed();
      Weir weir = context.getBean(Weir.class);
      assertThat(flowCount(context, "a")).as("the file's flow rule of a wins").isEqualTo(2);
      assertThat(weir.rules().rules("a").degrade()).as("a's degrade rule, which the file does not give, stays")
          .hasSize(1);
      assertThat(flowCount(context, "b")).isEqualTo(9);
      assertThat(context.getBean(RuleSources.class).watching()).isTrue();

      write(file, "flow:\n  - resource: a\n    count: 3\n");
      await("the edit applied", () -> flowCount(context, "a") == 3);
      settled(context.getBean(RuleSources.class)); // b is replaced after a, in the same check
      assertThat(weir.rules().rules("b").flow()).as("b is no longer in the file, and nothing else gives it").isEmpty();

      write(file, "degrade:\n  - resource: a\n    strategy: error-count\n    threshold: 7\n");
      await("the file now gives a's degrade rule, and its flow rule falls back to application.yml",
          () -> flowCount(context, "a") == 5
              && weir.rules().rules("a").degrade().get(0).threshold() == 7);
      assertThat(status(context, file)).isEqualTo("ok");
    });
  }

  /** Collects the audit events of rule changes. */
  static final class AuditEvents implements ApplicationListener<AuditApplicationEvent> {
    final List<AuditEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onApplicationEvent(AuditApplicationEvent event) {
      events.add(event.getAuditEvent());
    }
  }

  @Test
  void everyAcceptedChangeOfTheFileIsAuditedWithItsSource() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 2\n");
    runner(file).withBean(AuditEvents.class).run(context -> {
      AuditEvents audit = context.getBean(AuditEvents.class);
      write(file, "flow:\n  - resource: a\n    count: 4\n");
      await("the edit applied", () -> flowCount(context, "a") == 4);
      await("the edit audited", () -> audit.events.stream().anyMatch(event ->
          ("file:" + file.toAbsolutePath()).equals(event.getData().get("source"))
              && "a".equals(event.getData().get("resource"))));
      assertThat(audit.events).allSatisfy(event -> assertThat(event.getType()).isEqualTo("WEIR_RULES_CHANGED"));
    });
  }

  @Test
  void anInvalidEditChangesNothingIsCountedAndShownUntilFixed() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 2\n");
    runner(file).run(context -> {
      assertThat(failures(context, file)).isZero();
      write(file, "flow:\n  - resource: a\n    count: -1\n");
      await("the invalid edit refused", () -> failures(context, file) == 1);
      assertThat(flowCount(context, "a")).as("nothing changed").isEqualTo(2);
      assertThat(status(context, file)).startsWith("invalid, nothing changed: file:" + file.toAbsolutePath()
          + ":3 flow[0].count: must be a number >= 0");
      Map<String, Object> details = context.getBean(WeirHealthIndicator.class).health().getDetails();
      @SuppressWarnings("unchecked")
      Map<String, String> sources = (Map<String, String>) details.get("ruleSources");
      assertThat(sources).containsEntry("application.yml", "ok").containsEntry("endpoint", "ok");
      assertThat(sources.get("file:" + file.toAbsolutePath())).contains("flow[0].count");

      write(file, "flow:\n  - resource: a\n    count: 4\n");
      // the rules change first, then the status (the watcher's thread clears it after applying)
      await("the fix applied and shown", () -> flowCount(context, "a") == 4 && "ok".equals(status(context, file)));
      assertThat(failures(context, file)).isEqualTo(1);
    });
  }

  @Test
  void aDeletedFileLeavesItsRulesInForceUntilItIsCreatedAgain() throws IOException {
    Path file = dir.resolve("rules.json");
    Files.writeString(file, "{\"flow\": [{\"resource\": \"a\", \"count\": 2}]}");
    runner(file).run(context -> {
      Files.delete(file);
      await("the deletion seen", () -> status(context, file).contains("deleted"));
      assertThat(flowCount(context, "a")).as("the rules last read stay").isEqualTo(2);
      assertThat(failures(context, file)).as("a deletion is no invalid content").isZero();

      Files.writeString(file, "{\"flow\": [{\"resource\": \"a\", \"count\": 2}]}");
      await("the same content, created again, is read again", () -> status(context, file).equals("ok"));
      Files.writeString(file, "{\"flow\": [{\"resource\": \"a\", \"count\": 6}]}");
      await("and watched", () -> flowCount(context, "a") == 6);
    });
  }

  /**
   * The kubelet's layout of a ConfigMap volume and its update: the data in a timestamped
   * directory, {@code ..data} a link to it, the file a link into {@code ..data}; an update writes
   * a new timestamped directory, points a new link {@code ..data_tmp} at it, renames that over
   * {@code ..data} (one atomic step), then deletes the old directory.
   */
  @Test
  void aConfigMapVolumeIsFollowedThroughItsSymlinkSwap() throws IOException {
    Path first = Files.createDirectory(dir.resolve("..2026_11_23_10_00_00.000000001"));
    Files.writeString(first.resolve("rules.yml"), "flow:\n  - resource: a\n    count: 2\n");
    Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
    Path file = Files.createSymbolicLink(dir.resolve("rules.yml"), Path.of("..data", "rules.yml"));
    runner(file).run(context -> {
      assertThat(flowCount(context, "a")).isEqualTo(2);

      Path second = Files.createDirectory(dir.resolve("..2026_11_23_10_05_00.000000002"));
      Files.writeString(second.resolve("rules.yml"), "flow:\n  - resource: a\n    count: 8\n");
      Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), second.getFileName());
      Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
      FileSystemUtils.deleteRecursively(first);

      await("the swapped content applied", () -> flowCount(context, "a") == 8);
      assertThat(Files.isSymbolicLink(file)).as("the link is untouched").isTrue();
      assertThat(status(context, file)).isEqualTo("ok");
    });
  }

  @Test
  void theWatcherThreadEndsWithTheContext() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "");
    RuleSources[] sources = new RuleSources[1];
    runner(file).run(context -> {
      sources[0] = context.getBean(RuleSources.class);
      assertThat(sources[0].watching()).isTrue();
    });
    assertThat(sources[0].watching()).as("the context's close stopped and joined the thread").isFalse();
  }

  @Test
  void anInvalidFileAtStartStopsTheStartNamingTheFileAndLine() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 1\n    grade: threads\n    control-behavior: queue\n");
    runner(file).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidWeirConfigurationException.class)
          .hasMessageContaining("file:" + file.toAbsolutePath() + ":");
    });
  }

  @Test
  void aMissingFileAtStartStopsTheStart() {
    Path file = dir.resolve("absent.yml");
    runner(file).run(context -> assertThat(context.getStartupFailure()).rootCause()
        .isInstanceOf(InvalidWeirConfigurationException.class)
        .hasMessageContaining("file:" + file.toAbsolutePath() + ": the file " + file.toAbsolutePath()
            + " does not exist"));
  }

  @Test
  void writeBackWithoutARuleFileStopsTheStartNamingTheProperty() {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.write-back=true")
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessageContaining("weir.rules.write-back: needs weir.rules.file"));
  }

  @Test
  void aRuleFileOfAnotherKindStopsTheStart() {
    Path file = dir.resolve("rules.properties");
    runner(file).run(context -> assertThat(context.getStartupFailure()).rootCause()
        .hasMessageContaining("weir.rules.file: must end with .yml, .yaml (YAML) or .json (JSON)"));
  }
}
