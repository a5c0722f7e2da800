package dev.weir.spring.rules;

import static dev.weir.spring.rules.Eventually.await;
import static dev.weir.spring.rules.Eventually.settled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code weir.rules.write-back}: rules posted to the endpoint over HTTP are merged into the rule
 * file, survive a restart, and neither concurrent writes nor a hand edit made meanwhile lose
 * anything.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriteBackTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  private ConfigurableApplicationContext start(Path file) {
    return new SpringApplicationBuilder(WriteBackTestApplication.class).run("--server.port=0",
        "--management.endpoints.web.exposure.include=weir", "--management.endpoint.weir.access=unrestricted",
        "--management.health.redis.enabled=false", "--weir.rules.file=" + file, "--weir.rules.write-back=true",
        "--weir.flow[0].resource=orders", "--weir.flow[0].count=100",
        "--weir.degrade[0].resource=payments", "--weir.degrade[0].strategy=error-count",
        "--weir.degrade[0].threshold=5");
  }

  private static HttpResponse<String> post(ConfigurableApplicationContext context, String resource, String json)
      throws IOException, InterruptedException {
    String port = context.getEnvironment().getProperty("local.server.port");
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static double count(ConfigurableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  /** What the file gives now, read as the watcher reads it. */
  private static RuleLayer inFile(ConfigurableApplicationContext context, Path file) throws IOException {
    RuleSource.Read read = new RuleFile(file).read(Files.readAllBytes(file), context.getBean(Weir.class).rules());
    assertThat(read.violations()).isEmpty();
    return read.layer();
  }

  @Test
  void aRestartStartsWithTheWrittenRules() throws Exception {
    Path file = dir.resolve("rules.yml");
    try (ConfigurableApplicationContext first = start(file)) {
      assertThat(Files.exists(file)).as("created by the first write").isFalse();
      HttpResponse<String> written = post(first, "orders",
          "{\"flow\": [{\"count\": 7, \"interval\": \"1m\", \"name\": \"orders:per-minute\"}]}");
      assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      assertThat(post(first, "payments", "{\"degrade\": []}").statusCode()).isEqualTo(200);
      assertThat(count(first, "orders")).isEqualTo(7);
      assertThat(first.getBean(Weir.class).rules().rules("payments").degrade()).isEmpty();
      HttpResponse<String> refused = post(first, "orders", "{\"flow\": [{\"count\": -1}]}");
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(Files.readString(file)).contains("resource: orders", "name: orders:per-minute", "count: 7",
          "interval: 1m", "cleared:",
          "payments:", "- degrade").doesNotContain("-1");
    }
    try (ConfigurableApplicationContext second = start(file)) {
      assertThat(count(second, "orders")).as("the file's rule over application.yml's 100").isEqualTo(7);
      assertThat(second.getBean(Weir.class).rules().rules("orders").flow().get(0).interval().toSeconds())
          .isEqualTo(60);
      assertThat(second.getBean(Weir.class).rules().rules("orders").flow().get(0).name())
          .isEqualTo("orders:per-minute");
      assertThat(second.getBean(Weir.class).rules().rules("payments").degrade())
          .as("the written [] clears application.yml's rule after the restart too").isEmpty();
    }
  }

  /**
   * Twenty writes from four threads at once, and a hand edit saved while one of them is between
   * reading the file and replacing it (the moment the merge rule is for): afterwards the file and
   * the engine hold every written rule, the rule edited by hand, and the rule that was there.
   */
  @Test
  void concurrentWritesAndAHandEditLoseNothing() throws Exception {
    Path file = dir.resolve("rules.json");
    Files.writeString(file, "{\"flow\": [{\"resource\": \"there\", \"count\": 1}]}");
    try (ConfigurableApplicationContext context = start(file)) {
      RuleFile ruleFile = context.getBean(RuleSources.class).ruleFile();
      AtomicBoolean edited = new AtomicBoolean();
      ruleFile.beforeMove = () -> {
        if (edited.compareAndSet(false, true)) {
          try {
            String now = Files.readString(file);
            String hand = now.replaceFirst("\\[", "[{\"resource\": \"byHand\", \"count\": 2},");
            Path temp = Files.createTempFile(dir, ".vim", ".swp");
            Files.writeString(temp, hand);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
          } catch (IOException ex) {
            throw new IllegalStateException(ex);
          }
        }
      };
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          int n = i;
          answers.add(pool.submit(() -> post(context, "r" + n, "{\"flow\": [{\"count\": " + (n + 10) + "}]}")));
        }
        for (Future<HttpResponse<String>> answer : answers) {
          assertThat(answer.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(edited).isTrue();
      Set<String> expected = IntStream.range(0, 20).mapToObj(i -> "r" + i).collect(Collectors.toSet());
      expected.add("byHand");
      expected.add("there");
      Set<String> fileResources = inFile(context, file).rules().flow().stream().map(FlowRule::resource)
          .collect(Collectors.toSet());
      assertThat(fileResources).containsExactlyInAnyOrderElementsOf(expected);
      for (int i = 0; i < 20; i++) {
        assertThat(count(context, "r" + i)).isEqualTo(i + 10);
      }
      await("the hand edit in force", () -> count(context, "byHand") == 2);
      settled(context.getBean(RuleSources.class));
      assertThat(count(context, "there")).isEqualTo(1);
    }
  }

  @Test
  void aFileEditedInvalidlyByHandRefusesTheWriteAndStaysAsItIs() throws Exception {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: there\n    count: 1\n");
    try (ConfigurableApplicationContext context = start(file)) {
      String broken = "flow:\n  - resource: there\n    count: -1\n";
      Files.writeString(file, broken);
      HttpResponse<String> refused = post(context, "orders", "{\"flow\": [{\"count\": 3}]}");
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.body()).contains("file:" + file.toAbsolutePath() + ":3 flow[0].count");
      assertThat(Files.readString(file)).isEqualTo(broken);
      assertThat(count(context, "orders")).as("nothing changed").isEqualTo(100);
    }
  }
}
