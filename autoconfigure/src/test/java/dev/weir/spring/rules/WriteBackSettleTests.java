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
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A rule file saved in place (truncated, written in two parts with a pause between) while the
 * watcher reads it and an endpoint write is merged into it ({@code weir.rules.write-back}): the
 * half-saved file is neither applied nor merged into, so the hand edit is kept in the file and the
 * engine ({@link Settle}). The interleavings are driven through the settle's pause: the editor's
 * second part lands while a reader waits for the file to settle, as it does for an editor that
 * pauses for less than {@link Settle#TIME}. Without the settle the reader goes on at once, and the
 * test finishes the save only after that reader is done (the write answered, or the engine changed),
 * which is how the edit was lost before. One test also races a real writer on the real clock.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriteBackSettleTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final String WATCHER = "weir-rule-files";

  /** The hand edit: b's count from 2 to 3. Its first part alone is a valid file without b. */
  private static final String PART = "flow:\n  - resource: a\n    count: 1\n";
  private static final String REST = "  - resource: b\n    count: 3\n";

  @TempDir
  Path dir;

  private ConfigurableApplicationContext start(Path file, WebApplicationType type) {
    return new SpringApplicationBuilder(WriteBackTestApplication.class, RuleFileWatchTests.AuditEvents.class)
        .web(type).run("--server.port=0",
            "--management.endpoints.web.exposure.include=weir", "--management.endpoint.weir.access=unrestricted",
            "--management.health.redis.enabled=false", "--weir.rules.file=" + file, "--weir.rules.write-back=true");
  }

  private static CompletableFuture<HttpResponse<String>> post(ConfigurableApplicationContext context,
      String resource, String json) {
    String port = context.getEnvironment().getProperty("local.server.port");
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  private static double count(ConfigurableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  /** The flow counts by resource that the file gives now, read as the watcher reads it. */
  private static Map<String, Double> inFile(ConfigurableApplicationContext context, Path file) throws IOException {
    RuleSource.Read read = new RuleFile(file).read(Files.readAllBytes(file), context.getBean(Weir.class).rules());
    assertThat(read.violations()).isEmpty();
    return read.layer().rules().flow().stream().collect(Collectors.toMap(FlowRule::resource, FlowRule::count));
  }

  private static String rule(String resource, int count) {
    return "  - resource: " + resource + "\n    count: " + count + "\n";
  }

  /** An editor saving in place: truncates the file and writes a first part; {@link #finish} the rest. */
  private static final class InPlaceSave {
    private final FileChannel channel;
    private boolean finished;

    InPlaceSave(Path file, String part) throws IOException {
      channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
      channel.write(ByteBuffer.wrap(part.getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes the rest, to the file the editor opened (even if it was renamed over), and closes it. */
    synchronized void finish(String rest) {
      if (finished) {
        return;
      }
      finished = true;
      try (FileChannel closing = channel) {
        closing.write(ByteBuffer.wrap(rest.getBytes(StandardCharsets.UTF_8)));
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }

    synchronized boolean finished() {
      return finished;
    }
  }

  /**
   * The write-back's read falls in the editor's pause: the editor finishes while the write-back
   * waits for the file to settle, and the write is merged into the whole edit. (Before, the write
   * merged into the first part and renamed it over the file, the second part went to the replaced
   * file, and b's rule was gone from file and engine.)
   */
  @Test
  void aWriteBackDuringAnInPlaceSaveKeepsTheHandEdit() throws Exception {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, PART + rule("b", 2));
    try (ConfigurableApplicationContext context = start(file, WebApplicationType.SERVLET)) {
      RuleSources sources = context.getBean(RuleSources.class);
      InPlaceSave save = new InPlaceSave(file, PART);
      AtomicInteger writeBackPauses = new AtomicInteger();
      sources.settle.pause = (path, time) -> {
        if (Thread.currentThread().getName().equals(WATCHER)) {
          // The watcher's pause lasts until the editor is done (its pause is the shorter), so that
          // it does not settle the first part, and trust it, before the write-back reads.
          while (!save.finished()) {
            Thread.sleep(1);
          }
          return;
        }
        writeBackPauses.incrementAndGet();
        save.finish(REST); // the editor's pause ends while the write-back waits
      };
      HttpResponse<String> written = post(context, "c", "{\"flow\": [{\"count\": 7}]}").get(30, TimeUnit.SECONDS);
      save.finish(REST); // without the settle: the editor's pause outlasted the write
      assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      assertThat(inFile(context, file)).as("the hand edit and the write, in the file")
          .isEqualTo(Map.of("a", 1.0, "b", 3.0, "c", 7.0));
      assertThat(writeBackPauses).as("the write-back waited for the file to settle").hasPositiveValue();
      settled(sources);
      assertThat(count(context, "a")).isEqualTo(1);
      assertThat(count(context, "b")).as("the hand edit in force").isEqualTo(3);
      assertThat(count(context, "c")).isEqualTo(7);
    }
  }

  /**
   * The watcher reads a file saved in place only once it has settled: b's rule is changed once,
   * from 2 to 3, and never removed by the first part applied alone (before, the watcher applied
   * that part 50 ms after its write: b's rule was removed, then put back by the rest).
   */
  @Test
  void theWatcherDoesNotApplyAHalfSavedFile() throws Exception {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, PART + rule("b", 2));
    try (ConfigurableApplicationContext context = start(file, WebApplicationType.NONE)) {
      RuleSources sources = context.getBean(RuleSources.class);
      List<AuditEvent> audit = context.getBean(RuleFileWatchTests.AuditEvents.class).events;
      assertThat(count(context, "b")).isEqualTo(2);
      long atStart = changesOfB(audit);
      AtomicInteger watcherPauses = new AtomicInteger();
      InPlaceSave[] save = new InPlaceSave[1];
      sources.settle.pause = (path, time) -> {
        watcherPauses.incrementAndGet();
        save[0].finish(REST); // the editor's pause ends while the watcher waits
      };
      save[0] = new InPlaceSave(file, PART);
      // Without the settle: the editor's pause outlasts the watcher's read of the first part.
      await("the watcher waiting, or having read the file", () -> watcherPauses.get() > 0 || count(context, "b") != 2);
      save[0].finish(REST);
      await("the edit in force", () -> count(context, "b") == 3);
      settled(sources);
      assertThat(count(context, "a")).isEqualTo(1);
      assertThat(changesOfB(audit) - atStart)
          .as("b's rule changed once, 2 to 3, never removed by a half-saved file").isEqualTo(1);
    }
  }

  private static long changesOfB(List<AuditEvent> audit) {
    return audit.stream().filter(event -> "b".equals(event.getData().get("resource"))).count();
  }

  /**
   * A file that keeps changing (here: one more line on every pause) never settles: the write is
   * answered 409 with a problem body, on Spring MVC and on WebFlux, and nothing changed.
   */
  @Test
  void aWriteWhileTheFileKeepsChangingIsAnswered409OnSpringMvc() throws Exception {
    answers409(WebApplicationType.SERVLET);
  }

  @Test
  void aWriteWhileTheFileKeepsChangingIsAnswered409OnWebFlux() throws Exception {
    answers409(WebApplicationType.REACTIVE);
  }

  private void answers409(WebApplicationType type) throws Exception {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, PART);
    try (ConfigurableApplicationContext context = start(file, type)) {
      RuleSources sources = context.getBean(RuleSources.class);
      CountDownLatch answered = new CountDownLatch(1);
      sources.settle.pause = (path, time) -> {
        if (Thread.currentThread().getName().equals(WATCHER)) {
          // The watcher does not settle (and trust) the file before the write is answered.
          answered.await();
          Thread.sleep(time.toMillis());
          return;
        }
        try {
          Files.writeString(file, "# still typing\n", StandardOpenOption.APPEND);
        } catch (IOException ex) {
          throw new UncheckedIOException(ex);
        }
      };
      Files.writeString(file, "# typing\n", StandardOpenOption.APPEND); // changed since start
      HttpResponse<String> refused = post(context, "c", "{\"flow\": [{\"count\": 7}]}").get(30, TimeUnit.SECONDS);
      answered.countDown();
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      assertThat(refused.body()).contains("\"status\":409", "\"title\":\"Rule file changing\"",
          "\"resource\":\"c\"", "is being written", "try again");
      assertThat(Files.readString(file)).as("the file as the editor left it").startsWith(PART + "# typing\n")
          .doesNotContain("resource: c");
      assertThat(count(context, "c")).as("nothing changed").isEqualTo(-1);
    }
  }

  /**
   * Real threads on the real clock, five rounds: an editor saving in place with a 300 ms pause
   * between its two writes (under {@link Settle#TIME}, the documented bound) and an endpoint write
   * posted in that pause. Every round keeps the hand edit and the write, in the file and the engine.
   */
  @Test
  void handEditsWithShortPausesRacingWritesAreKept() throws Exception {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, PART + rule("b", 2));
    try (ConfigurableApplicationContext context = start(file, WebApplicationType.SERVLET)) {
      StringBuilder posted = new StringBuilder();
      for (int round = 0; round < 5; round++) {
        // The editor saves what it loaded (a, the writes so far) with b changed, b last.
        String part = PART + posted;
        InPlaceSave save = new InPlaceSave(file, part);
        CompletableFuture<HttpResponse<String>> written = post(context, "c" + round,
            "{\"flow\": [{\"count\": " + (10 + round) + "}]}");
        Thread.sleep(300);
        save.finish(rule("b", 20 + round));
        HttpResponse<String> answer = written.get(30, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        posted.append(rule("c" + round, 10 + round));
        Map<String, Double> inFile = inFile(context, file);
        assertThat(inFile).as("round %d: the hand edit in the file", round).containsEntry("b", 20.0 + round);
        for (int i = 0; i <= round; i++) {
          assertThat(inFile).as("round %d: write %d in the file", round, i).containsEntry("c" + i, 10.0 + i);
        }
        settled(context.getBean(RuleSources.class));
        assertThat(count(context, "b")).as("round %d: the hand edit in force", round).isEqualTo(20 + round);
        assertThat(count(context, "c" + round)).isEqualTo(10 + round);
      }
    }
  }
}
