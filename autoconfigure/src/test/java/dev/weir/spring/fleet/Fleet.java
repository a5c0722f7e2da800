package dev.weir.spring.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * Instances of a fleet on a real {@code redis-server}, and their HTTP: each a Spring context of
 * {@link FleetTestApplication} on a random port, Spring MVC or WebFlux, with the rules store on.
 */
final class Fleet implements AutoCloseable {

  static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final JsonMapper JSON = JsonMapper.builder().build();

  /** The longest a test waits for something asynchronous (a process, a reconnect). */
  static final Duration WAIT = Duration.ofSeconds(30);

  /** The resource every instance has a rule for in application.yml: 100 per second. */
  static final String API = "api";

  final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  /** Starts an instance on {@code port}; {@code overrides} replace or add properties. */
  ConfigurableApplicationContext start(int port, boolean reactive, Map<String, String> overrides) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.main.banner-mode", "off");
    properties.put("server.port", "0");
    properties.put("spring.data.redis.host", "127.0.0.1");
    properties.put("spring.data.redis.port", Integer.toString(port));
    properties.put("spring.data.redis.timeout", "2s");
    properties.put("spring.data.redis.connect-timeout", "1s");
    properties.put("management.endpoints.web.exposure.include", "health,weir,prometheus");
    properties.put("management.endpoint.weir.access", "unrestricted");
    properties.put("management.endpoint.health.show-details", "always");
    properties.put("management.health.redis.enabled", "false");
    properties.put("weir.cluster.enabled", "true");
    properties.put("weir.cluster.key-prefix", "fleet");
    properties.put("weir.rules-store.enabled", "true");
    properties.put("weir.rules-store.history", "5");
    properties.put("weir.flow[0].resource", API);
    properties.put("weir.flow[0].count", "100");
    properties.putAll(overrides);
    ConfigurableApplicationContext context = new SpringApplicationBuilder(FleetTestApplication.class)
        .web(reactive ? WebApplicationType.REACTIVE : WebApplicationType.SERVLET)
        .properties(properties)
        .run();
    instances.add(context);
    return context;
  }

  ConfigurableApplicationContext start(int port, boolean reactive) {
    return start(port, reactive, Map.of());
  }

  static int port(ConfigurableApplicationContext context) {
    return ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  static FleetSync sync(ConfigurableApplicationContext context) {
    return context.getBean(FleetSync.class);
  }

  /** The count of the first flow rule of {@code resource} in force on the instance; -1 without one. */
  static double flowCount(ConfigurableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  static HttpResponse<String> post(ConfigurableApplicationContext context, String path, String body,
      String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(context, path))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return send(request.build());
  }

  static HttpResponse<String> get(ConfigurableApplicationContext context, String path) {
    return send(HttpRequest.newBuilder(uri(context, path)).timeout(Duration.ofSeconds(30)).build());
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> json(HttpResponse<String> response) {
    return JSON.readValue(response.body(), Map.class);
  }

  /** Writes a flow rule of {@code count} for {@code resource}; returns the version written (asserting 200). */
  static long writeFlow(ConfigurableApplicationContext context, String resource, int count) {
    HttpResponse<String> response = post(context, "/actuator/weir/" + resource, "{\"flow\": [{\"count\": " + count
        + "}]}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return ((Number) json(response).get("version")).longValue();
  }

  private static URI uri(ConfigurableApplicationContext context, String path) {
    return URI.create("http://127.0.0.1:" + port(context) + path);
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError("HTTP " + request.uri() + ": " + e, e);
    }
  }

  /** Polls {@code condition} every 2 ms for up to {@link #WAIT}; returns the nanoseconds it took. */
  static long await(String what, BooleanSupplier condition) {
    long start = System.nanoTime();
    long deadline = start + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + WAIT.toSeconds() + " s waiting until " + what);
      }
      sleep(2); // polling real time: instances follow the store on threads of their own
    }
    return System.nanoTime() - start;
  }

  /** Waits until every instance applies {@code version}. */
  void awaitAll(long version) {
    await("every instance applies version " + version,
        () -> instances.stream().allMatch(context -> sync(context).appliedVersion() == version));
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  @Override
  public void close() {
    instances.forEach(ConfigurableApplicationContext::close);
    instances.clear();
  }
}
