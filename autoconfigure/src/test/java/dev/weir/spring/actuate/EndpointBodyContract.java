package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.spring.properties.InputLimits;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code POST /actuator/weir/{resource}} answers, over real HTTP, the same on Spring MVC
 * ({@link EndpointBodyOnSpringMvcTests}) and WebFlux ({@link EndpointBodyOnWebFluxTests}): the
 * contract's body and the dashboard page's are applied; malformed JSON, a body that is not an
 * object, an unknown kind and a query parameter are a 400 naming the field; a body over 1 MiB is a
 * 413 whether its length is announced or not, and nothing changes; a body of exactly 1 MiB, and
 * 4,000 rules, are answered. Each test uses a resource of its own.
 */
@Timeout(120)
abstract class EndpointBodyContract {

  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  abstract int port();

  abstract Weir weir();

  private HttpRequest.Builder at(String resource) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port() + "/actuator/weir/" + resource))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60));
  }

  HttpResponse<String> post(String resource, String body) throws Exception {
    return CLIENT.send(at(resource).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> postChunked(String resource, byte[] body) throws Exception {
    // A publisher of unknown length: sent chunked, without Content-Length.
    HttpRequest request = at(resource).POST(HttpRequest.BodyPublishers.ofInputStream(
        () -> new ByteArrayInputStream(body))).build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private double count(String resource) {
    List<FlowRule> flow = weir().rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  private static void assertRefused(HttpResponse<String> answer, String field, String message) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    assertThat(answer.body()).contains("\"title\":\"Invalid rules\"", "\"field\":\"" + field + "\"", message);
  }

  @Test
  void theContractsBodyIsApplied() throws Exception {
    HttpResponse<String> answer = post("body.contract", "{\"flow\": [{\"count\": 7, \"interval\": \"1m\"}]}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).contains("\"count\":7", "\"interval\":\"1m\"");
    assertThat(count("body.contract")).isEqualTo(7);
  }

  /**
   * A write for a resource no call has used since start is applied (the rules may be meant for a
   * resource still to come), and the answer says so, with the closest resource in use.
   */
  @Test
  void aWriteToAMisspeltResourceIsAppliedWithAWarningNamingTheClosestResourceInUse() throws Exception {
    try (dev.weir.Entry entry = weir().entry("body.greeting")) {
      // one call: the resource is in use
    }
    HttpResponse<String> misspelt = post("body.greting", "{\"flow\": [{\"count\": 5}]}");
    assertThat(misspelt.statusCode()).as(misspelt.body()).isEqualTo(200);
    assertThat(misspelt.body()).contains("\"warnings\":[\"no call has used resource 'body.greting' since start"
        + " (did you mean 'body.greeting'?)\"]");
    assertThat(count("body.greting")).as("applied all the same").isEqualTo(5);

    HttpResponse<String> used = post("body.greeting", "{\"flow\": [{\"count\": 5}]}");
    assertThat(used.statusCode()).as(used.body()).isEqualTo(200);
    assertThat(used.body()).as("a resource in use: no warnings field").doesNotContain("warnings");
    assertThat(post("body.greting", "{\"flow\": []}").body()).as("rules removed: nothing to warn of")
        .doesNotContain("warnings");
  }

  @Test
  void theDashboardPagesBodyIsApplied() throws Exception {
    HttpResponse<String> answer = post("body.page", "{\"rules\": \"{\\\"flow\\\": [{\\\"count\\\": 8}]}\"}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(count("body.page")).isEqualTo(8);
  }

  @Test
  void malformedJsonIsA400NamingTheBody() throws Exception {
    assertRefused(post("body.malformed", "{\"flow\": [{\"count\": 7}"), "body", "must be a JSON object");
    assertRefused(post("body.malformed", "{flow: []}"), "body", "must be a JSON object");
    assertThat(count("body.malformed")).as("nothing changed").isEqualTo(-1);
  }

  @Test
  void aBodyThatIsNotAnObjectIsA400NamingTheBody() throws Exception {
    assertRefused(post("body.scalar", "[{\"count\": 7}]"), "body", "must be a JSON object");
    assertRefused(post("body.scalar", "42"), "body", "must be a JSON object");
    assertRefused(post("body.scalar", "\"flow\""), "body", "must be a JSON object");
    assertRefused(post("body.scalar", "null"), "body", "must be a JSON object");
  }

  @Test
  void anUnknownKindAndABadFieldAreA400NamingThem() throws Exception {
    assertRefused(post("body.kind", "{\"flw\": [{\"count\": 7}]}"), "flw", "did you mean 'flow'?");
    assertRefused(post("body.kind", "{\"flow\": [{\"count\": -1}]}"), "flow[0].count", "must be a number >= 0");
    assertRefused(post("body.kind", "{\"flow\": [{\"count\": 1, \"burst\": 2}]}"), "flow[0].burst",
        "no rule of this kind has this field");
    assertRefused(post("body.kind", "{\"flow\": {\"count\": 1}}"), "flow", "must be a list of rules");
    assertRefused(post("body.kind", "{\"flow\": [{\"count\": 1, \"a.b\": 2}]}"), "flow[0].a.b",
        "no rule of this kind has this field");
    assertThat(count("body.kind")).as("nothing changed").isEqualTo(-1);
  }

  @Test
  void aQueryParameterIsA400NamingIt() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port()
            + "/actuator/weir/body.query?degrade=x"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"flow\": [{\"count\": 7}]}")).build();
    HttpResponse<String> answer = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    assertRefused(answer, "degrade[0]", "must be an object");
    assertThat(count("body.query")).isEqualTo(-1);
  }

  @Test
  void aBodyBeyondTheLimitsOfNestingEntriesOrFieldsIsA400NamingTheLimit() throws Exception {
    String deep = "{\"flow\": [{\"count\": 1, \"limitApp\": " + "[".repeat(30) + "]".repeat(30) + "}]}";
    assertRefused(post("body.limits", deep), "body", "nesting depth");
    StringJoiner many = new StringJoiner(",", "{\"flow\": [", "]}");
    for (int i = 0; i <= InputLimits.MAX_WRITE_ENTRIES; i++) {
      many.add("{\"count\": 1}");
    }
    assertRefused(post("body.limits", many.toString()), "body", "holds 5001 rules and entries of their lists;"
        + " a write takes at most 5000");
    StringJoiner wide = new StringJoiner(",", "{\"flow\": [{", "}]}");
    for (int i = 0; i <= InputLimits.MAX_FIELDS; i++) {
      wide.add("\"f" + i + "\": 1");
    }
    assertRefused(post("body.limits", wide.toString()), "flow[0]", "has 65 fields; a rule has at most 64");
    assertThat(count("body.limits")).as("nothing changed").isEqualTo(-1);
  }

  /** A valid body padded with spaces to {@code size} bytes. */
  static byte[] padded(String json, int size) {
    byte[] body = (json + " ".repeat(size - json.length())).getBytes(StandardCharsets.UTF_8);
    assertThat(body).hasSize(size);
    return body;
  }

  @Test
  void aBodyOfExactlyOneMebibyteIsRead() throws Exception {
    byte[] body = padded("{\"flow\": [{\"count\": 9}]}", InputLimits.MAX_BYTES);
    HttpResponse<String> answer = CLIENT.send(at("body.limit").POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(count("body.limit")).isEqualTo(9);
    HttpResponse<String> chunked = postChunked("body.limit", padded("{\"flow\": [{\"count\": 10}]}",
        InputLimits.MAX_BYTES));
    assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(200);
    assertThat(count("body.limit")).isEqualTo(10);
  }

  @Test
  void aBodyOverOneMebibyteIsA413AndChangesNothing() throws Exception {
    byte[] body = padded("{\"flow\": [{\"count\": 9}]}", InputLimits.MAX_BYTES + 1);
    HttpResponse<String> announced = CLIENT.send(at("body.over").POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(announced.statusCode()).as(announced.body()).isEqualTo(413);
    assertThat(announced.body()).contains("1048576 bytes (1 MiB)");
    assertThat(count("body.over")).as("nothing changed").isEqualTo(-1);
  }

  @Test
  void aChunkedBodyOverOneMebibyteIsA413AndChangesNothing() throws Exception {
    byte[] body = padded("{\"flow\": [{\"count\": 9}]}", InputLimits.MAX_BYTES + InputLimits.MAX_BYTES / 2);
    HttpResponse<String> chunked = postChunked("body.over.chunked", body);
    assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(413);
    assertThat(chunked.body()).contains("1048576 bytes (1 MiB)");
    assertThat(count("body.over.chunked")).as("nothing changed").isEqualTo(-1);
  }

  /**
   * 4,000 rules of one resource are answered well within the old cost: they took 34 s on Spring MVC
   * before rules were bound one by one. Measured as the CPU time of this JVM (the server and the
   * client are both in it), which other work on a busy machine does not stretch as it does the
   * wall-clock time; the bound, 10 s, is far above what they take now (well under a second) and far
   * below the old cost. That the cost is linear in the rules is {@code PostedRulesScalingTests}'.
   */
  @Test
  void fourThousandRulesAreAnsweredInTime() throws Exception {
    StringJoiner rules = new StringJoiner(",", "{\"flow\": [", "]}");
    for (int i = 0; i < 4000; i++) {
      rules.add("{\"count\": " + (i + 1) + ", \"limitApp\": \"origin" + i + "\"}");
    }
    String body = rules.toString();
    post("body.many", "{\"flow\": [{\"count\": 1}]}"); // warms the path
    com.sun.management.OperatingSystemMXBean process =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long start = System.nanoTime();
    long cpuStart = process.getProcessCpuTime();
    HttpResponse<String> answer = post("body.many", body);
    long cpuMillis = (process.getProcessCpuTime() - cpuStart) / 1_000_000;
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.println("4000 rules (" + body.length() + " bytes) answered in " + millis + " ms, " + cpuMillis
        + " ms of CPU");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(weir().rules().rules("body.many").flow()).hasSize(4000);
    assertThat(cpuMillis).as("CPU time of the JVM, ms").isLessThan(10_000);
  }
}
