package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The write operation when the actuator's base path and the endpoint's path are mapped elsewhere. */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {"spring.config.name=observability-test", "management.endpoints.web.base-path=/manage",
        "management.endpoints.web.path-mapping.weir=rules"})
class RemappedEndpointTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Test
  void writeOperationTakesListsAtTheMappedPath() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/manage/rules/obs.remapped"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"flow\": [{\"count\": 3}]}")).build();
    HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(weir.rules().rules("obs.remapped").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(3.0));
  }
}
