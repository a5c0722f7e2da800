package dev.weir.spring.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.DegradeException;
import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.spring.test.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;

/**
 * The monitoring files of docs/monitoring against a real instance: every Weir metric the Grafana
 * dashboard and the Prometheus alerts query is one that the instance's {@code /actuator/prometheus}
 * exports (an instance with every kind of meter: a breaker, an adaptive rule, cluster mode, the
 * rules store), and the alerts pass their {@code promtool test rules} unit tests.
 */
class MonitoringFilesTests {

  private static final Path MONITORING = Path.of("../docs/monitoring");

  /** A metric name in PromQL: {@code weir_...}, not followed by a quote (a label value) or a paren. */
  private static final Pattern METRIC = Pattern.compile("\\b(weir_[a-z0-9_]+)\\b");

  private static RedisServer redis;
  private static Fleet fleet;
  private static Set<String> exported;

  @BeforeAll
  static void scrapeAnInstanceWithEveryMeter() throws Exception {
    redis = RedisServer.start();
    fleet = new Fleet();
    ConfigurableApplicationContext instance = fleet.start(redis.port(), false, Map.ofEntries(
        Map.entry("weir.flow[1].resource", "mon.adaptive"),
        Map.entry("weir.flow[1].grade", "adaptive"),
        Map.entry("weir.flow[1].min-limit", "2"),
        Map.entry("weir.flow[1].max-limit", "20"),
        Map.entry("weir.flow[2].resource", "mon.cluster"),
        Map.entry("weir.flow[2].count", "100"),
        Map.entry("weir.flow[2].cluster-mode", "true"),
        Map.entry("weir.degrade[0].resource", "mon.breaker"),
        Map.entry("weir.degrade[0].strategy", "error-count"),
        Map.entry("weir.degrade[0].threshold", "0"),
        Map.entry("weir.degrade[0].min-request-amount", "1"),
        Map.entry("weir.degrade[0].open-duration", "60s")));
    Weir weir = instance.getBean(Weir.class);
    for (String resource : List.of("mon.adaptive", "mon.cluster", Fleet.API)) {
      try (Entry entry = weir.entry(resource)) {
        // one admitted call each
      } catch (FlowException e) {
        // counted as blocked: the meters exist either way
      }
    }
    try (Entry entry = weir.entry("mon.breaker")) {
      entry.recordError(new IllegalStateException("down"));
    }
    try (Entry entry = weir.entry("mon.breaker")) {
      throw new AssertionError("the breaker should be open");
    } catch (DegradeException expected) {
      // open now: weir_circuit_state{state="open"} is 1
    }
    Fleet.await("the rules store answers", () -> Fleet.sync(instance).reachable()); // the connection opens at start
    fleet.awaitAll(Fleet.writeFlow(instance, Fleet.API, 100)); // weir_rules_version: a version applied
    String body = Fleet.get(instance, "/actuator/prometheus").body();
    exported = new TreeSet<>();
    for (String line : body.split("\n")) {
      if (!line.startsWith("#") && line.startsWith("weir_")) {
        exported.add(line.substring(0, line.replaceAll("[{ ].*", "").length()));
      }
    }
    System.out.println("Weir's metrics in /actuator/prometheus: " + exported);
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void everyMetricTheDashboardQueriesIsOneWeirExports() throws IOException {
    JsonNode dashboard = Fleet.JSON.readTree(Files.readString(MONITORING.resolve("weir-dashboard.json")));
    List<String> expressions = new ArrayList<>();
    collectExpressions(dashboard, expressions);
    assertThat(expressions).as("the dashboard's queries").hasSizeGreaterThan(5);
    Set<String> used = new TreeSet<>();
    for (String expression : expressions) {
      used.addAll(metrics(expression));
    }
    assertThat(used).as("metrics the dashboard uses").isNotEmpty();
    assertThat(exported).as("metrics a real instance exports").containsAll(used);
  }

  @Test
  void everyMetricTheAlertsQueryIsOneWeirExports() throws IOException {
    Map<String, Object> alerts = new Yaml().load(Files.readString(MONITORING.resolve("weir-alerts.yml")));
    Set<String> used = new TreeSet<>();
    List<String> names = new ArrayList<>();
    for (Object group : (List<?>) alerts.get("groups")) {
      for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
        names.add(String.valueOf(((Map<?, ?>) rule).get("alert")));
        used.addAll(metrics(String.valueOf(((Map<?, ?>) rule).get("expr"))));
      }
    }
    assertThat(names).containsExactly("WeirRefusalRatioHigh", "WeirCircuitOpen", "WeirAdaptiveLimitAtMinimum",
        "WeirClusterFallbackActive", "WeirRulesVersionBehind");
    assertThat(used).as("metrics the alerts use").containsExactlyInAnyOrder("weir_calls_total", "weir_circuit_state",
        "weir_limit_adaptive", "weir_limit_adaptive_min", "weir_cluster_decisions_total", "weir_rules_version");
    assertThat(exported).as("metrics a real instance exports").containsAll(used);
  }

  @Test
  void theAlertsPassTheirPromtoolUnitTests() throws Exception {
    Path promtool = promtool();
    if (promtool == null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new IllegalStateException("promtool is required in CI (.ci/run installs Debian's prometheus)");
      }
      Assumptions.abort("promtool not found in /usr/bin or on the PATH: the alerts' unit tests skipped;"
          + " install Debian's prometheus (apt-get install prometheus) to run them");
    }
    Process process = new ProcessBuilder(promtool.toString(), "test", "rules", "weir-alerts-test.yml")
        .directory(MONITORING.toFile()).redirectErrorStream(true).start();
    String output;
    try (var in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("promtool ends").isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).contains("SUCCESS");
  }

  /** {@code promtool} in /usr/bin (Debian's prometheus package) or on the PATH; null when there is none. */
  private static Path promtool() {
    List<String> dirs = new ArrayList<>(List.of("/usr/bin"));
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(java.io.File.pathSeparator)));
    }
    for (String dir : dirs) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "promtool"))) {
        return Path.of(dir, "promtool");
      }
    }
    return null;
  }

  /** The metric names of Weir in a PromQL expression. */
  private static Set<String> metrics(String expression) {
    Set<String> out = new TreeSet<>();
    Matcher matcher = METRIC.matcher(expression);
    while (matcher.find()) {
      out.add(matcher.group(1));
    }
    return out;
  }

  /** Every {@code expr} of a Grafana dashboard: targets of panels, panels of rows, template queries. */
  private static void collectExpressions(JsonNode node, List<String> out) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if ((field.getKey().equals("expr") || field.getKey().equals("query")) && field.getValue().isString()) {
          out.add(field.getValue().asString());
        } else if (field.getKey().equals("query") && field.getValue().isObject()
            && field.getValue().has("query")) {
          out.add(field.getValue().get("query").asString());
        } else {
          collectExpressions(field.getValue(), out);
        }
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        collectExpressions(element, out);
      }
    }
  }
}
