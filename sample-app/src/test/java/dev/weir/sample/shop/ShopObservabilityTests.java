package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.test.AutoConfigureWeirTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The shop's actuator: Weir's meters in the Prometheus scrape, its endpoint and its health. Tests
 * turn metrics export off unless asked, hence the Prometheus property. The exact counts below hold
 * because {@code @AutoConfigureWeirTest} resets the engine before the test, whatever ran before it
 * in this application context, and holds its time still.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
    "management.endpoints.web.exposure.include=health,metrics,prometheus,weir",
    "management.endpoint.health.show-details=always",
    "management.prometheus.metrics.export.enabled=true"})
@AutoConfigureWeirTest
class ShopObservabilityTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  private HttpResponse<String> get(String path) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void prometheusEndpointAndHealthShowWeir() throws Exception {
    assertThat(get("/products/search?q=tea").statusCode()).isEqualTo(200);

    HttpResponse<String> scrape = get("/actuator/prometheus");
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body()).contains(
        "weir_calls_total{resource=\"searchProducts\",result=\"succeeded\"} 1.0",
        "weir_calls_total{resource=\"searchProducts\",result=\"blocked\"} 0.0",
        "weir_blocks_total{resource=\"searchProducts\",rule=\"flow\"} 0.0",
        "weir_blocks_shadow_total{resource=\"searchProducts\",rule=\"flow\"} 0.0",
        "weir_calls_active{resource=\"searchProducts\"} 0.0",
        "weir_call_duration_seconds_count{resource=\"searchProducts\"} 1",
        "weir_circuit_state{resource=\"shippingQuote\",state=\"closed\"} 1.0");

    HttpResponse<String> weir = get("/actuator/weir/searchProducts");
    assertThat(weir.statusCode()).isEqualTo(200);
    assertThat(weir.body()).contains("\"rules\":{\"flow\":[{\"resource\":\"searchProducts\",\"count\":2,");

    HttpResponse<String> health = get("/actuator/health/weir");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("{\"details\":{\"circuits\":{},\"cluster\":\"disabled\","
        + "\"ruleSources\":{\"application.yml\":\"ok\",\"endpoint\":\"ok\"}},\"status\":\"UP\"}");
  }

  @Test
  void theShopOpensTheEndpointsWriteSoARuleCanBeRolledOutInShadow() throws Exception {
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/demo.shadow"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"flow\": [{\"count\": 1, \"shadow\": true}]}")).build();
    HttpResponse<String> written = CLIENT.send(post, HttpResponse.BodyHandlers.ofString());
    assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
    assertThat(written.body()).contains("\"shadow\":true").contains("\"shadowBlocked\":{\"flow\":0,");
  }
}
