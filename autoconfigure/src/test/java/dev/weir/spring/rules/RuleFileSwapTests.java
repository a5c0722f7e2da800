package dev.weir.spring.rules;

import static dev.weir.spring.rules.Eventually.await;
import static dev.weir.spring.rules.Eventually.settled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The rule file behind symbolic links that are swapped, and deleted files, with the watcher and
 * write-back: what the last round's tests (a ConfigMap's {@code ..data} swap, a deletion without
 * write-back) did not reach. Real files, links and HTTP.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RuleFileSwapTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  /** Points {@code link} at {@code target} in one step, as deploy tools do: a new link renamed over the old. */
  static void swap(Path link, Path target) throws IOException {
    Path fresh = Files.createSymbolicLink(link.resolveSibling(link.getFileName() + ".new"), target);
    Files.move(fresh, link, StandardCopyOption.ATOMIC_MOVE);
  }

  private static double count(Weir weir, String resource) {
    List<FlowRule> flow = weir.rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  /**
   * A release layout: {@code current -> releases/1}, the rule file {@code current/rules.yml}. A
   * deploy points {@code current} at {@code releases/2}. The watched directory is {@code current}
   * itself, which the watch service resolved to {@code releases/1} when it was registered: the swap
   * happens one level up. The new content must be applied, and edits of the new release's file too.
   */
  @Test
  void aSwappedLinkToTheFilesDirectoryIsFollowed() throws IOException {
    Path first = Files.createDirectories(dir.resolve("releases/1"));
    Path second = Files.createDirectories(dir.resolve("releases/2"));
    Files.writeString(first.resolve("rules.yml"), "flow:\n  - resource: a\n    count: 2\n");
    Files.writeString(second.resolve("rules.yml"), "flow:\n  - resource: a\n    count: 8\n");
    Path current = Files.createSymbolicLink(dir.resolve("current"), Path.of("releases/1"));
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + current.resolve("rules.yml"))
        .run(context -> {
          Weir weir = context.getBean(Weir.class);
          assertThat(count(weir, "a")).isEqualTo(2);
          swap(current, Path.of("releases/2"));
          await("the new release's rules applied", () -> count(weir, "a") == 8);
          Path edit = Files.createTempFile(second, ".edit", ".tmp");
          Files.writeString(edit, "flow:\n  - resource: a\n    count: 9\n");
          Files.move(edit, second.resolve("rules.yml"), StandardCopyOption.ATOMIC_MOVE);
          await("an edit in the new release applied", () -> count(weir, "a") == 9);
          status(context, current.resolve("rules.yml"));
        });
  }

  /**
   * The same swap, deterministically, on the watcher itself: the check that first reads the new
   * release is the moment an edit to it is made, as a deploy tool that edits right after the swap
   * would. The watcher must register the new target before the check reads it, so that the edit
   * raises an event and a second check runs. (It registered after the check, and an edit in
   * between was lost until some other change: the flaky failure of the test above in CI.)
   */
  @Test
  void anEditOfTheNewTargetDuringTheCheckThatFirstReadsItIsSeen() throws Exception {
    Path first = Files.createDirectories(dir.resolve("releases/1"));
    Path second = Files.createDirectories(dir.resolve("releases/2"));
    Files.writeString(first.resolve("rules.yml"), "1");
    Files.writeString(second.resolve("rules.yml"), "2");
    Path current = Files.createSymbolicLink(dir.resolve("current"), Path.of("releases/1"));
    Path file = current.resolve("rules.yml");
    LinkedBlockingQueue<String> read = new LinkedBlockingQueue<>();
    AtomicBoolean edited = new AtomicBoolean();
    Runnable check = () -> {
      try {
        String content = Files.readString(file);
        read.add(content);
        if (content.equals("2") && edited.compareAndSet(false, true)) {
          Path edit = Files.createTempFile(second, ".edit", ".tmp");
          Files.writeString(edit, "3");
          Files.move(edit, second.resolve("rules.yml"), StandardCopyOption.ATOMIC_MOVE);
        }
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    };
    try (FileWatcher watcher = new FileWatcher(List.of(file), check)) {
      swap(current, Path.of("releases/2"));
      assertThat(read.poll(10, TimeUnit.SECONDS)).as("the swap checked").isEqualTo("2");
      assertThat(read.poll(10, TimeUnit.SECONDS)).as("the edit made during that check seen").isEqualTo("3");
    }
  }

  private static void status(AssertableApplicationContext context, Path file) {
    assertThat(context.getBean(RuleSources.class).status().get("file:" + file.toAbsolutePath())).isEqualTo("ok");
  }

  private ConfigurableApplicationContext start(Path file) {
    return new SpringApplicationBuilder(WriteBackTestApplication.class).run("--server.port=0",
        "--management.endpoints.web.exposure.include=weir", "--management.endpoint.weir.access=unrestricted",
        "--management.health.redis.enabled=false", "--weir.rules.file=" + file, "--weir.rules.write-back=true");
  }

  private static HttpResponse<String> post(ConfigurableApplicationContext context, String resource, String json)
      throws IOException, InterruptedException {
    String port = context.getEnvironment().getProperty("local.server.port");
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static Set<String> resourcesIn(Path file, Weir weir) throws IOException {
    RuleSource.Read read = new RuleFile(file).read(Files.readAllBytes(file), weir.rules());
    assertThat(read.violations()).isEmpty();
    return read.layer().rules().flow().stream().map(FlowRule::resource).collect(Collectors.toSet());
  }

  /**
   * Write-back through a link that a deploy (or an operator) points elsewhere while the write is
   * between reading the file and replacing it: the write must land in the file the link points to
   * now, merged with what that file holds, not in the one it pointed to before (whose rules would
   * then be dropped by the watcher's next read, the write answered 200 and lost).
   */
  @Test
  void aWriteBackWhileTheLinkIsSwappedLandsInTheNewTarget() throws Exception {
    Path first = Files.createDirectories(dir.resolve("v1"));
    Path second = Files.createDirectories(dir.resolve("v2"));
    Files.writeString(first.resolve("rules.yml"), "flow:\n  - resource: old\n    count: 1\n");
    Files.writeString(second.resolve("rules.yml"), "flow:\n  - resource: new\n    count: 2\n");
    Path file = Files.createSymbolicLink(dir.resolve("rules.yml"), Path.of("v1/rules.yml"));
    try (ConfigurableApplicationContext context = start(file)) {
      Weir weir = context.getBean(Weir.class);
      AtomicBoolean swapped = new AtomicBoolean();
      context.getBean(RuleSources.class).ruleFile().beforeMove = () -> {
        if (swapped.compareAndSet(false, true)) {
          try {
            swap(file, Path.of("v2/rules.yml"));
          } catch (IOException ex) {
            throw new IllegalStateException(ex);
          }
        }
      };
      HttpResponse<String> written = post(context, "posted", "{\"flow\": [{\"count\": 3}]}");
      assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      assertThat(swapped).isTrue();
      assertThat(resourcesIn(file, weir)).containsExactlyInAnyOrder("new", "posted");
      await("the new target's rules in force", () -> count(weir, "new") == 2);
      settled(context.getBean(RuleSources.class));
      assertThat(count(weir, "posted")).isEqualTo(3);
      assertThat(Files.isSymbolicLink(file)).isTrue();
    }
  }

  /**
   * A rule file deleted by hand keeps its rules in force (the rule of docs/rule-sources.md); a write-back then
   * recreates the file from those rules and the write, rather than from nothing, which would drop
   * every rule of the deleted file silently.
   */
  @Test
  void aWriteBackAfterTheFileWasDeletedKeepsTheRulesInForce() throws Exception {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: kept\n    count: 4\n");
    try (ConfigurableApplicationContext context = start(file)) {
      Weir weir = context.getBean(Weir.class);
      Files.delete(file);
      await("the deletion seen", () -> context.getBean(RuleSources.class).status()
          .get("file:" + file.toAbsolutePath()).contains("deleted"));
      assertThat(count(weir, "kept")).isEqualTo(4);
      HttpResponse<String> written = post(context, "posted", "{\"flow\": [{\"count\": 3}]}");
      assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      assertThat(resourcesIn(file, weir)).containsExactlyInAnyOrder("kept", "posted");
      assertThat(count(weir, "kept")).as("the deleted file's rules stay in force").isEqualTo(4);
      assertThat(count(weir, "posted")).isEqualTo(3);
      assertThat(context.getBean(RuleSources.class).status().get("file:" + file.toAbsolutePath())).isEqualTo("ok");
    }
  }
}
