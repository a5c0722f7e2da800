package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A cluster-mode rule on a resource that begins with <code>}</code>: its Redis keys would carry an
 * empty hash tag (<code>{}</code>), which Redis Cluster does not use, hashing each key whole, so
 * the keys one script touches would lie in different slots (CROSSSLOT; {@code RedisClusterModeTests}
 * shows it on a real Redis Cluster). Refused at start (a real context on the test's real
 * {@code redis-server}) and by an endpoint write over real HTTP, naming the path and why; a brace
 * anywhere else in the name is safe and accepted.
 */
class ClusterResourceNameTests extends WithSharedRedisServer {

  private static RuleViolation refusalAtStart(Map<String, String> overrides) {
    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
        () -> ClusterFaults.start(redis.port(), overrides).close());
    assertThat(failure).as("the start fails").isNotNull();
    Throwable cause = failure;
    while (cause != null && !(cause instanceof InvalidWeirConfigurationException)) {
      cause = cause.getCause();
    }
    assertThat(cause).as("failed for the configuration: %s", failure).isNotNull();
    return ((InvalidWeirConfigurationException) cause).violations().stream()
        .filter(violation -> violation.field().endsWith(".resource")).findFirst().orElseThrow();
  }

  @Test
  void aClusterModeFlowRuleOnAResourceBeginningWithAClosingBraceIsRefusedAtStart() {
    RuleViolation refused = refusalAtStart(ClusterFaults.props("weir.flow[0].resource", "}faults",
        "weir.cluster.lease", "true"));
    assertThat(refused.field()).isEqualTo("weir.flow[0].resource");
    assertThat(refused.message()).contains("must not begin with '}'", "empty", "CROSSSLOT");
  }

  @Test
  void aClusterModeParamFlowRuleOnAResourceBeginningWithAClosingBraceIsRefusedAtStart() {
    RuleViolation refused = refusalAtStart(ClusterFaults.props("weir.param-flow[0].resource", "}keys",
        "weir.param-flow[0].count", "5", "weir.param-flow[0].param-index", "0",
        "weir.param-flow[0].cluster-mode", "true"));
    assertThat(refused.field()).isEqualTo("weir.param-flow[0].resource");
    assertThat(refused.message()).contains("must not begin with '}'", "CROSSSLOT");
  }

  @Test
  void aBraceElsewhereInTheNameAndALocalRuleOnAnyNameStart() {
    for (String name : new String[] {"fau}lts", "{faults}", "faults}", "{}faults"}) {
      ClusterFaults.start(redis.port(), ClusterFaults.props("weir.flow[0].resource", name,
          "weir.cluster.lease", "true")).close();
    }
    ClusterFaults.start(redis.port(), ClusterFaults.props("weir.flow[0].resource", "}faults",
        "weir.flow[0].cluster-mode", "false")).close();
  }

  @Test
  void anEndpointWriteOfSuchARuleIsRefusedNamingItsPath() throws Exception {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("server.port", "0");
    properties.put("management.endpoints.web.exposure.include", "weir");
    properties.put("management.endpoint.weir.access", "unrestricted");
    properties.put("management.health.redis.enabled", "false");
    properties.put("spring.data.redis.port", Integer.toString(redis.port()));
    properties.put("weir.cluster.enabled", "true");
    properties.put("weir.cluster.key-prefix", "names");
    properties.put("weir.cluster.lease", "true");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ClusterFaultApplication.class)
        .web(WebApplicationType.SERVLET).properties(properties).run()) {
      String port = context.getEnvironment().getProperty("local.server.port");
      HttpClient client = HttpClient.newHttpClient();
      String rules = "{\"flow\":[{\"count\":5,\"interval\":\"1d\",\"cluster-mode\":true}]}";
      HttpResponse<String> refused = client.send(HttpRequest.newBuilder(
          URI.create("http://localhost:" + port + "/actuator/weir/%7Dorders"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(rules)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
      assertThat(refused.body()).contains("flow[0].resource", "must not begin with '}'", "CROSSSLOT");
      HttpResponse<String> accepted = client.send(HttpRequest.newBuilder(
          URI.create("http://localhost:" + port + "/actuator/weir/or%7Dders"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(rules)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
      assertThat(context.getBean(dev.weir.Weir.class).rules().rules("}orders").isEmpty())
          .as("nothing of the refused write applied").isTrue();
    }
  }
}
