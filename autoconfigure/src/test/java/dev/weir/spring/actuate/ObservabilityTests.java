package dev.weir.spring.actuate;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.DegradeException;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.spring.actuate.ObservabilityTestApplication.DownstreamFailure;
import dev.weir.spring.actuate.ObservabilityTestApplication.Guarded;
import dev.weir.spring.test.ManualTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

/**
 * Meters, the {@code weir} endpoint, the health contributor and the Prometheus scrape, over real
 * HTTP on a random port. Each test uses resources of its own, so that the order does not matter;
 * time moves only when a test moves it.
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=observability-test")
@AutoConfigureMetrics // tests disable metrics export (Prometheus) unless asked
@ExtendWith(OutputCaptureExtension.class)
class ObservabilityTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort
  int port;

  @Autowired
  Guarded guarded;

  @Autowired
  ManualTicker ticker;

  @Autowired
  Weir weir;

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://localhost:" + port + path);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> json(HttpResponse<String> response) {
    return JSON.readValue(response.body(), Map.class);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object value) {
    return (List<Object>) value;
  }

  /** Returns the one measurement of a meter, read from /actuator/metrics. */
  double measure(String meter, String statistic, String... tags) throws Exception {
    StringBuilder path = new StringBuilder("/actuator/metrics/" + meter + "?");
    for (String tag : tags) {
      path.append("tag=").append(tag).append('&');
    }
    HttpResponse<String> response = get(path.toString());
    assertThat(response.statusCode()).as(path + " " + response.body()).isEqualTo(200);
    for (Object measurement : list(json(response).get("measurements"))) {
      if (statistic.equals(map(measurement).get("statistic"))) {
        return ((Number) map(measurement).get("value")).doubleValue();
      }
    }
    throw new AssertionError("no " + statistic + " in " + response.body());
  }

  @Test
  void callsAndBlocksAreCountedExactly() throws Exception {
    int ok = 0;
    int refused = 0;
    for (int i = 0; i < 5; i++) {
      int status = get("/limited").statusCode();
      ok += status == 200 ? 1 : 0;
      refused += status == 429 ? 1 : 0;
    }
    assertThat(ok).isEqualTo(3);
    assertThat(refused).isEqualTo(2);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.limited", "result:blocked")).isEqualTo(2.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.limited", "result:succeeded")).isEqualTo(3.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.limited", "result:failed")).isEqualTo(0.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.limited")).isEqualTo(5.0);
    assertThat(measure("weir.blocks", "COUNT", "resource:obs.limited", "rule:flow")).isEqualTo(2.0);
    for (String kind : List.of("degrade", "param-flow", "authority", "system")) {
      assertThat(measure("weir.blocks", "COUNT", "resource:obs.limited", "rule:" + kind)).isEqualTo(0.0);
    }
    assertThat(measure("weir.calls.active", "VALUE", "resource:obs.limited")).isEqualTo(0.0);
    assertThat(measure("weir.call.duration", "COUNT", "resource:obs.limited")).isEqualTo(3.0);
    assertThat(measure("weir.circuit.state", "VALUE", "resource:obs.limited", "state:closed")).isEqualTo(1.0);
    assertThat(measure("weir.circuit.state", "VALUE", "resource:obs.limited", "state:open")).isEqualTo(0.0);
  }

  @Test
  void metersCarryTheConfiguredTagsAndNoOthers() throws Exception {
    guarded.other();
    Map<String, Object> calls = json(get("/actuator/metrics/weir.calls?tag=resource:obs.other"));
    assertThat(list(calls.get("availableTags"))).map(tag -> map(tag).get("tag"))
        .containsExactlyInAnyOrder("app", "result");
    assertThat(list(calls.get("availableTags"))).map(tag -> map(tag))
        .contains(Map.of("tag", "app", "values", List.of("obs-test")));
    for (String meter : List.of("weir.blocks", "weir.calls.active", "weir.call.duration", "weir.circuit.state")) {
      assertThat(measure(meter, meter.equals("weir.blocks") || meter.equals("weir.call.duration") ? "COUNT" : "VALUE",
          "resource:obs.other",
          "app:obs-test")).as(meter).isGreaterThanOrEqualTo(0.0);
    }
  }

  @Test
  void failuresResponseTimesAndOpenCircuits() throws Exception {
    assertThatThrownBy(() -> guarded.flaky(Duration.ofMillis(100), true)).isInstanceOf(DownstreamFailure.class);
    assertThatThrownBy(() -> guarded.flaky(Duration.ofMillis(200), true)).isInstanceOf(DownstreamFailure.class);
    assertThatThrownBy(() -> guarded.flaky(Duration.ofMillis(400), false)).isInstanceOf(DegradeException.class);

    assertThat(measure("weir.calls", "COUNT", "resource:obs.flaky", "result:failed")).isEqualTo(2.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.flaky", "result:succeeded")).isEqualTo(0.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.flaky", "result:blocked")).isEqualTo(1.0);
    assertThat(measure("weir.blocks", "COUNT", "resource:obs.flaky", "rule:degrade")).isEqualTo(1.0);
    assertThat(measure("weir.call.duration", "COUNT", "resource:obs.flaky")).isEqualTo(2.0);
    assertThat(measure("weir.call.duration", "TOTAL_TIME", "resource:obs.flaky")).isEqualTo(0.3);
    assertThat(measure("weir.circuit.state", "VALUE", "resource:obs.flaky", "state:open")).isEqualTo(1.0);
    assertThat(measure("weir.circuit.state", "VALUE", "resource:obs.flaky", "state:closed")).isEqualTo(0.0);
    assertThat(measure("weir.circuit.state", "VALUE", "resource:obs.flaky", "state:half_open")).isEqualTo(0.0);

    HttpResponse<String> health = get("/actuator/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(json(health)).containsEntry("status", "UP");
    Map<String, Object> weirHealth = map(map(json(health).get("components")).get("weir"));
    assertThat(weirHealth).containsEntry("status", "UP");
    assertThat(map(weirHealth.get("details"))).containsEntry("cluster", "disabled");
    assertThat(map(map(weirHealth.get("details")).get("circuits"))).containsEntry("obs.flaky", "open");

    HttpResponse<String> component = get("/actuator/health/weir");
    assertThat(component.statusCode()).isEqualTo(200);
    assertThat(map(map(json(component).get("details")).get("circuits"))).containsEntry("obs.flaky", "open")
        .doesNotContainKey("obs.limited");
    assertThat(map(json(get("/actuator/weir/obs.flaky")))).containsEntry("circuitState", "open");
  }

  @Test
  void activeCallsAreAGauge() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread caller = new Thread(() -> {
      try {
        guarded.held(entered, release);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    caller.start();
    try {
      entered.await();
      assertThat(measure("weir.calls.active", "VALUE", "resource:obs.held")).isEqualTo(1.0);
    } finally {
      release.countDown();
      caller.join();
    }
    assertThat(measure("weir.calls.active", "VALUE", "resource:obs.held")).isEqualTo(0.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.held", "result:succeeded")).isEqualTo(1.0);
  }

  @Test
  void endpointShowsStatisticsAndRulesOfEveryResourceAndTheSystemRule() throws Exception {
    guarded.other();
    HttpResponse<String> response = get("/actuator/weir");
    assertThat(response.statusCode()).isEqualTo(200);
    Map<String, Object> body = json(response);
    assertThat(map(body.get("system"))).isEqualTo(Map.of("maxQps", 1000, "shadow", false));
    Map<String, Object> resources = map(body.get("resources"));
    assertThat(resources).containsKeys("obs.other", "obs.limited", "obs.flaky", "obs.write");
    Map<String, Object> other = map(resources.get("obs.other"));
    assertThat(other).containsEntry("passQps", 1).containsEntry("blockQps", 0).containsEntry("successQps", 1)
        .containsEntry("exceptionQps", 0).containsEntry("avgRt", 0.0).containsEntry("activeCalls", 0)
        .containsEntry("circuitState", "closed");
    Map<String, Object> rules = map(other.get("rules"));
    assertThat(rules).containsOnlyKeys("flow", "degrade", "paramFlow", "authority");
    assertThat(list(rules.get("flow"))).containsExactly(Map.ofEntries(
        Map.entry("resource", "obs.other"), Map.entry("count", 7), Map.entry("grade", "qps"),
        Map.entry("interval", "1s"), Map.entry("exact", false), Map.entry("controlBehavior", "queue"),
        Map.entry("warmUpPeriod", "10s"), Map.entry("coldFactor", 3), Map.entry("maxQueueingTime", "250ms"),
        Map.entry("strategy", "direct"), Map.entry("limitApp", "default"), Map.entry("clusterMode", false),
        Map.entry("shadow", false)));
    assertThat(list(rules.get("degrade"))).isEmpty();

    HttpResponse<String> one = get("/actuator/weir/obs.other");
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(json(one)).isEqualTo(other);

    Map<String, Object> flaky = map(map(resources.get("obs.flaky")).get("rules"));
    assertThat(list(flaky.get("degrade"))).containsExactly(Map.of("resource", "obs.flaky",
        "strategy", "error-count", "threshold", 1, "slowCallThreshold", "1s", "minRequestAmount", 2,
        "statInterval", "10s", "openDuration", "30s", "shadow", false));
  }

  @Test
  void unknownResourceIsNotFound() throws Exception {
    assertThat(get("/actuator/weir/no.such.resource").statusCode()).isEqualTo(404);
  }

  @Test
  void postedRulesAreInForceOnTheNextCallAndOtherKindsAndResourcesAreKept(CapturedOutput output)
      throws Exception {
    Map<String, Object> otherBefore = json(get("/actuator/weir/obs.other"));
    assertThat(get("/write").statusCode()).isEqualTo(200);
    assertThat(get("/write").statusCode()).isEqualTo(200);

    HttpResponse<String> response = post("/actuator/weir/obs.write",
        "{\"flow\": [{\"count\": 1, \"interval\": \"PT1M\"}]}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    Map<String, Object> rules = map(json(response).get("rules"));
    assertThat(list(rules.get("flow"))).singleElement().satisfies(rule -> assertThat(map(rule))
        .containsEntry("resource", "obs.write").containsEntry("count", 1).containsEntry("interval", "1m"));
    assertThat(list(rules.get("degrade"))).as("kinds not posted keep their rules").singleElement()
        .satisfies(rule -> assertThat(map(rule)).containsEntry("strategy", "error-ratio"));

    assertThat(get("/write").statusCode()).isEqualTo(200);
    assertRefusedBy(RuleKind.FLOW, get("/write")); // the new limit, 1 a minute
    assertThat(weir.rules().rules("obs.write").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(1.0));
    assertThat(json(get("/actuator/weir/obs.other"))).as("other resources are untouched").isEqualTo(otherBefore);
    assertThat(output).contains("Rules of 'obs.write' replaced (source: endpoint, principal: anonymous, kinds: flow):"
        + " flow [{count=5,");
    assertThat(output).contains("-> [{count=1, grade=qps, interval=1m,");
  }

  @Test
  void invalidRulesAreRefusedWithEveryReasonAndNothingChanges(CapturedOutput output) throws Exception {
    assertThat(get("/invalid").statusCode()).isEqualTo(200);
    assertRefusedBy(RuleKind.FLOW, get("/invalid"));

    HttpResponse<String> negative = post("/actuator/weir/obs.invalid",
        "{\"flow\": [{\"count\": -1}], \"degrade\": [{\"strategy\": \"error-ratio\", \"threshold\": 2}]}");
    assertThat(negative.statusCode()).isEqualTo(400);
    Map<String, Object> body = json(negative);
    assertThat(body).containsEntry("title", "Invalid rules").containsEntry("status", 400)
        .containsEntry("resource", "obs.invalid");
    assertThat(list(body.get("violations"))).map(violation -> map(violation).get("field"))
        .containsExactly("flow[0].count", "degrade[0].threshold");
    assertThat(list(body.get("violations"))).allSatisfy(
        violation -> assertThat((String) map(violation).get("message")).isNotBlank());

    assertRefused("{\"flow\": [{\"count\": 2, \"interval\": \"soon\"}]}", "flow[0].interval",
        "must be a duration such as 500ms, 10s, 1m, 1h or PT1H, was 'soon'");
    assertRefused("{\"flow\": [{\"count\": 2, \"controlBehavior\": \"bogus\"}]}", "flow[0].controlBehavior",
        "must be one of reject, warm-up, queue, warm-up-queue, was 'bogus'");
    String misspelt = "{\"flow\": [{\"cuont\": 2, \"limitApp\": \"a\", \"maxQueueingTme\": \"1s\"}]}";
    assertRefused(misspelt, "flow[0].cuont", "no rule of this kind has this field");
    assertRefused(misspelt, "flow[0].maxQueueingTme", "no rule of this kind has this field");
    assertRefused("{\"flow\": [{\"grade\": \"threads\"}]}", "flow[0].count", "is required");
    assertRefused("{\"flow\": [{\"resource\": \"obs.other\", \"count\": 2}]}", "flow[0].resource",
        "must be 'obs.invalid' here");
    assertRefused("{\"flow\": [\"count=2\"]}", "flow[0]", "must be an object");
    assertRefused("{}", "body", "at least one of flow, degrade, paramFlow, authority");
    assertRefused("", "body", "at least one of flow, degrade, paramFlow, authority");
    assertRefused("{\"flow\": {\"count\": 2}}", "flow", "must be a list of rules");
    assertRefused("{\"flow\": \"[{\\\"count\\\": -2}]\"}", "flow[0].count", "must be a number >= 0");

    assertThat(weir.rules().rules("obs.invalid").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(1.0));
    assertThat(weir.rules().rules("obs.invalid").degrade()).isEmpty();
    assertRefusedBy(RuleKind.FLOW, get("/invalid")); // the old rule is still in force
    assertThat(output).contains("Rules of 'obs.invalid' not replaced through the weir endpoint: "
        + "flow[0].count: must be a number >= 0");
  }

  @Test
  void unknownKindIsRefusedAndNothingChanges(CapturedOutput output) throws Exception {
    Map<String, Object> before = json(get("/actuator/weir/obs.typo"));

    HttpResponse<String> misspelt = post("/actuator/weir/obs.typo",
        "{\"flow\": [{\"count\": 9}], \"degarde\": [{\"strategy\": \"error-ratio\", \"threshold\": 0.5}]}");
    assertThat(misspelt.statusCode()).as(misspelt.body()).isEqualTo(400);
    assertThat(json(misspelt)).containsEntry("title", "Invalid rules").containsEntry("resource", "obs.typo");
    assertThat(list(json(misspelt).get("violations"))).singleElement().satisfies(violation -> {
      assertThat(map(violation)).containsEntry("field", "degarde");
      assertThat((String) map(violation).get("message")).isEqualTo("is not a kind of rules (did you mean "
          + "'degrade'?); the body takes flow, degrade, paramFlow, authority, a list of rules each");
    });
    assertTypoRefused("{\"param-flow\": [{\"count\": 1}]}", "param-flow", "did you mean 'paramFlow'?");
    assertTypoRefused("{\"flow\": [{\"count\": -1}], \"rules\": []}", "rules", "is not a kind of rules;");
    HttpResponse<String> both = post("/actuator/weir/obs.typo", "{\"flow\": [{\"count\": -1}], \"rules\": []}");
    assertThat(list(json(both).get("violations"))).as("every problem is listed")
        .map(violation -> map(violation).get("field")).containsExactly("rules", "flow[0].count");
    HttpResponse<String> query = post("/actuator/weir/obs.typo?dryRun=true", "{\"flow\": [{\"count\": 9}]}");
    assertThat(query.statusCode()).as("a query parameter is an argument too").isEqualTo(400);
    assertThat(query.body()).contains("dryRun");

    assertThat(json(get("/actuator/weir/obs.typo")).get("rules")).as("nothing changed")
        .isEqualTo(before.get("rules"));
    assertThat(weir.rules().rules("obs.typo").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(2.0));
    assertThat(weir.rules().rules("obs.typo").degrade()).singleElement()
        .satisfies(rule -> assertThat(rule.threshold()).isEqualTo(3.0));
    assertThat(output).contains("Rules of 'obs.typo' not replaced through the weir endpoint: degarde: is not a kind");
  }

  @Test
  void aResourceInTheBodyOrQueryNeverSelectsAnotherResource() throws Exception {
    Map<String, Object> typo = json(get("/actuator/weir/obs.typo"));
    Map<String, Object> other = json(get("/actuator/weir/obs.other"));

    HttpResponse<String> body = post("/actuator/weir/obs.typo", "{\"resource\": \"obs.other\", \"flow\": [{\"count\": 9}]}");
    assertThat(body.statusCode()).as(body.body()).isEqualTo(400);
    assertThat(json(body)).containsEntry("resource", "obs.typo");
    assertThat(list(json(body).get("violations"))).singleElement().satisfies(violation -> {
      assertThat(map(violation)).containsEntry("field", "resource");
      assertThat((String) map(violation).get("message"))
          .startsWith("is not a kind of rules (the resource is the one named in the path)");
    });
    HttpResponse<String> query = post("/actuator/weir/obs.typo?resource=obs.other", "{\"flow\": [{\"count\": 9}]}");
    assertThat(query.statusCode()).as(query.body()).isEqualTo(400);
    assertThat(query.body()).contains("\"field\":\"resource\"");

    assertThat(json(get("/actuator/weir/obs.other")).get("rules")).as("nothing changed").isEqualTo(other.get("rules"));
    assertThat(json(get("/actuator/weir/obs.typo")).get("rules")).as("nothing changed").isEqualTo(typo.get("rules"));
  }

  private void assertTypoRefused(String json, String field, String message) throws Exception {
    HttpResponse<String> response = post("/actuator/weir/obs.typo", json);
    assertThat(response.statusCode()).as(json).isEqualTo(400);
    assertThat(list(json(response).get("violations"))).as(json).anySatisfy(violation -> {
      assertThat(map(violation)).containsEntry("field", field);
      assertThat((String) map(violation).get("message")).contains(message);
    });
  }

  @Test
  void durationBeyondItsBoundIsRefusedAndTheRuleInForceStays() throws Exception {
    Map<String, Object> before = json(get("/actuator/weir/obs.typo"));

    HttpResponse<String> queueing = post("/actuator/weir/obs.typo",
        "{\"flow\": [{\"count\": 3, \"controlBehavior\": \"queue\", \"maxQueueingTime\": \"200000d\"}]}");
    assertThat(queueing.statusCode()).as(queueing.body()).isEqualTo(400);
    assertThat(list(json(queueing).get("violations"))).singleElement().satisfies(violation -> {
      assertThat(map(violation)).containsEntry("field", "flow[0].max-queueing-time");
      assertThat((String) map(violation).get("message")).isEqualTo("must be from 0ms to 1h, was PT4800000H");
    });
    assertTypoRefused("{\"flow\": [{\"count\": 3, \"controlBehavior\": \"warm-up\", \"warmUpPeriod\": \"200000d\"}]}",
        "flow[0].warm-up-period", "must be from 1ms to 1d");
    assertTypoRefused("{\"flow\": [{\"count\": 1e-10, \"controlBehavior\": \"queue\"}]}", "flow[0].count",
        "more than 1d apart");
    assertTypoRefused("{\"paramFlow\": [{\"count\": 3, \"controlBehavior\": \"queue\", "
        + "\"maxQueueingTime\": \"200000d\"}]}", "param-flow[0].max-queueing-time", "must be from 0ms to 1h");
    assertTypoRefused("{\"paramFlow\": [{\"count\": 3, \"duration\": \"200000d\"}]}", "param-flow[0].duration",
        "from 1ms to 1d");

    assertThat(json(get("/actuator/weir/obs.typo"))).as("GET shows the rules in force, unchanged")
        .isEqualTo(before);
    assertThat(weir.rules().rules("obs.typo").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(2.0));
    assertThat(weir.rules().rules("obs.typo").paramFlow()).isEmpty();
  }

  private void assertRefused(String json, String field, String message) throws Exception {
    HttpResponse<String> response = post("/actuator/weir/obs.invalid", json);
    assertThat(response.statusCode()).as(json).isEqualTo(400);
    assertThat(list(json(response).get("violations"))).as(json).anySatisfy(violation -> {
      assertThat(map(violation)).containsEntry("field", field);
      assertThat((String) map(violation).get("message")).contains(message);
    });
  }

  @Test
  void whatIsReadCanBePostedBackAndCircuitStateSurvives() throws Exception {
    assertThatThrownBy(() -> guarded.kept(true)).isInstanceOf(DownstreamFailure.class);
    assertThatThrownBy(() -> guarded.kept(false)).isInstanceOf(DegradeException.class);
    Map<String, Object> before = json(get("/actuator/weir/obs.kept"));
    assertThat(before).containsEntry("circuitState", "open");

    String rules = JSON.writeValueAsString(before.get("rules"));
    HttpResponse<String> same = post("/actuator/weir/obs.kept", rules);
    assertThat(same.statusCode()).as(same.body()).isEqualTo(200);
    assertThat(map(json(same).get("rules"))).isEqualTo(before.get("rules"));

    HttpResponse<String> added = post("/actuator/weir/obs.kept",
        "{\"flow\": [{\"count\": 100, \"control-behavior\": \"WARM_UP\", \"warm-up-period\": \"2s\"}],"
            + " \"paramFlow\": [{\"paramIndex\": 0, \"count\": 5,"
            + " \"exceptions\": [{\"value\": \"true\", \"count\": 9}]}],"
            + " \"authority\": [{\"strategy\": \"black\", \"limitApp\": [\"intruder\"]},"
            + " {\"strategy\": \"white\", \"limitApp\": [\"ops\"], \"allowNoOrigin\": true}]}");
    assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
    Map<String, Object> after = json(added);
    assertThat(after).containsEntry("circuitState", "open");
    Map<String, Object> afterRules = map(after.get("rules"));
    assertThat(afterRules.get("degrade")).isEqualTo(map(before.get("rules")).get("degrade"));
    assertThat(list(afterRules.get("flow"))).singleElement().satisfies(rule -> assertThat(map(rule))
        .containsEntry("controlBehavior", "warm-up").containsEntry("warmUpPeriod", "2s"));
    assertThat(list(afterRules.get("paramFlow"))).singleElement().satisfies(rule -> assertThat(map(rule))
        .containsEntry("count", 5).containsEntry("exceptions", List.of(Map.of("value", "true", "count", 9))));
    assertThat(list(afterRules.get("authority"))).containsExactly(
        Map.of("resource", "obs.kept", "strategy", "black", "limitApp", List.of("intruder"), "allowNoOrigin", false,
            "shadow", false),
        Map.of("resource", "obs.kept", "strategy", "white", "limitApp", List.of("ops"), "allowNoOrigin", true,
            "shadow", false));
    assertThatThrownBy(() -> guarded.kept(false)).as("the breaker is still open")
        .isInstanceOf(DegradeException.class);

    HttpResponse<String> removed = post("/actuator/weir/obs.kept",
        "{\"flow\": [], \"paramFlow\": [], \"authority\": []}");
    assertThat(removed.statusCode()).isEqualTo(200);
    assertThat(map(json(removed).get("rules"))).isEqualTo(before.get("rules"));
  }

  @Test
  void prometheusScrapeCarriesTheMeters() throws Exception {
    assertThat(get("/scraped").statusCode()).isEqualTo(200);
    assertRefusedBy(RuleKind.FLOW, get("/scraped"));
    HttpResponse<String> scrape = get("/actuator/prometheus");
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body()).contains(
        "weir_calls_total{app=\"obs-test\",resource=\"obs.scraped\",result=\"blocked\"} 1.0\n",
        "weir_calls_total{app=\"obs-test\",resource=\"obs.scraped\",result=\"succeeded\"} 1.0\n",
        "weir_calls_total{app=\"obs-test\",resource=\"obs.scraped\",result=\"failed\"} 0.0\n",
        "weir_blocks_total{app=\"obs-test\",resource=\"obs.scraped\",rule=\"flow\"} 1.0\n",
        "weir_blocks_total{app=\"obs-test\",resource=\"obs.scraped\",rule=\"param-flow\"} 0.0\n",
        "weir_calls_active{app=\"obs-test\",resource=\"obs.scraped\"} 0.0\n",
        "weir_call_duration_seconds_count{app=\"obs-test\",resource=\"obs.scraped\"} 1\n",
        "weir_call_duration_seconds_sum{app=\"obs-test\",resource=\"obs.scraped\"} 0.0\n",
        "weir_circuit_state{app=\"obs-test\",resource=\"obs.scraped\",state=\"closed\"} 1.0\n",
        "weir_circuit_state{app=\"obs-test\",resource=\"obs.scraped\",state=\"half_open\"} 0.0\n");
  }

  @Test
  void metersAppearWhenAResourceGetsRulesAndCountCallsOfCode() throws Exception {
    assertThat(get("/actuator/metrics/weir.calls?tag=resource:obs.direct").statusCode()).isEqualTo(404);
    weir.rules().update("obs.direct", current -> current.withFlow(List.of(FlowRule.qps("obs.direct", 1))));
    assertThat(measure("weir.calls", "COUNT", "resource:obs.direct")).isEqualTo(0.0);
    weir.entry("obs.direct").close();
    assertThatThrownBy(() -> weir.entry("obs.direct").close()).isInstanceOf(FlowException.class);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.direct", "result:succeeded")).isEqualTo(1.0);
    assertThat(measure("weir.calls", "COUNT", "resource:obs.direct", "result:blocked")).isEqualTo(1.0);
  }

  @Test
  void theAdaptiveLimitIsAGaugeAndInTheEndpointWhileTheResourceHasAnAdaptiveRule() throws Exception {
    // limits pinned (min = max), so that the engine's value is known whatever the adaptive limiter does
    weir.rules().update("obs.adaptive", current -> current.withFlow(List.of(FlowRule.adaptive("obs.adaptive", 7, 7, 7),
        FlowRule.adaptive("obs.adaptive", 9, 9, 9), FlowRule.qps("obs.adaptive", 100))));
    int limit = weir.statistics("obs.adaptive").adaptiveLimit();
    assertThat(limit).as("the engine's limit: the lowest adaptive rule's").isEqualTo(7);
    assertThat(measure("weir.limit.adaptive", "VALUE", "resource:obs.adaptive")).isEqualTo(limit);
    assertThat(get("/actuator/prometheus").body())
        .contains("weir_limit_adaptive{app=\"obs-test\",resource=\"obs.adaptive\"} 7.0\n")
        .contains("weir_limit_adaptive_min{app=\"obs-test\",resource=\"obs.adaptive\"} 7.0\n");
    Map<String, Object> resource = json(get("/actuator/weir/obs.adaptive"));
    assertThat(resource).containsEntry("adaptiveLimit", 7);
    assertThat(map(map(json(get("/actuator/weir")).get("resources")).get("obs.adaptive")))
        .containsEntry("adaptiveLimit", 7);
    List<Object> flow = list(map(resource.get("rules")).get("flow"));
    assertThat(map(flow.get(0))).containsEntry("grade", "adaptive").containsEntry("minLimit", 7)
        .containsEntry("maxLimit", 7).containsEntry("initialLimit", 7).doesNotContainKey("count");
    // what the endpoint shows can be posted back as it is
    HttpResponse<String> again = post("/actuator/weir/obs.adaptive", JSON.writeValueAsString(Map.of("flow", flow)));
    assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
    assertThat(weir.rules().rules("obs.adaptive").flow()).startsWith(FlowRule.adaptive("obs.adaptive", 7, 7, 7));
    HttpResponse<String> bad = post("/actuator/weir/obs.adaptive",
        "{\"flow\": [{\"grade\": \"adaptive\", \"minLimit\": 5, \"maxLimit\": 2}]}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("flow[0].max-limit");

    weir.rules().update("obs.adaptive", current -> current.withFlow(List.of(FlowRule.qps("obs.adaptive", 100))));
    // no adaptive rule now: Micrometer's "no value" (the metrics endpoint writes NaN as a string)
    assertThat(list(json(get("/actuator/metrics/weir.limit.adaptive?tag=resource:obs.adaptive")).get("measurements")))
        .singleElement().satisfies(measurement -> assertThat(String.valueOf(map(measurement).get("value")))
            .isEqualTo("NaN"));
    assertThat(list(json(get("/actuator/metrics/weir.limit.adaptive.min?tag=resource:obs.adaptive")).get("measurements")))
        .singleElement().satisfies(measurement -> assertThat(String.valueOf(map(measurement).get("value")))
            .isEqualTo("NaN"));
    assertThat(json(get("/actuator/weir/obs.adaptive"))).doesNotContainKey("adaptiveLimit")
        .containsKey("activeCalls");
    weir.rules().update("obs.adaptive", current -> current.withFlow(List.of(FlowRule.adaptive("obs.adaptive", 3, 3, 3))));
    assertThat(measure("weir.limit.adaptive", "VALUE", "resource:obs.adaptive")).isEqualTo(3.0);
    // the floor beside the limit: an alert compares them ("pinned at its minimum")
    weir.rules().update("obs.adaptive", current -> current.withFlow(List.of(FlowRule.adaptive("obs.adaptive", 2, 4, 3))));
    assertThat(measure("weir.limit.adaptive.min", "VALUE", "resource:obs.adaptive")).isEqualTo(2.0);
  }
}
