package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.actuate.RuleWriteTestApplication.AuditEvents;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The write operation of the {@code weir} endpoint is closed by default, over real HTTP: the endpoint
 * is exposed and reads answer, but with {@code management.endpoint.weir.access} unset a
 * {@code POST} is not mapped, and Spring MVC answers it {@code 405 Method Not Allowed}; nothing
 * changes and nothing is audited.
 */
@SpringBootTest(classes = RuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=rule-write-test")
class EndpointWriteClosedTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  @Autowired
  AuditEvents audit;

  @Test
  void postAnswers405UntilTheOperatorOpensTheWriteAndReadsStayAvailable() throws Exception {
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/write.closed"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"flow\": [{\"count\": 100}]}")).build();
    HttpResponse<String> refused = CLIENT.send(post, HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(405);
    assertThat(refused.headers().allValues("Allow")).as("only reads are mapped").containsExactly("GET");

    assertThat(weir.rules().rules("write.closed").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(2.0));
    assertThat(audit.received).isEmpty();

    HttpRequest get = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/write.closed"))
        .build();
    HttpResponse<String> read = CLIENT.send(get, HttpResponse.BodyHandlers.ofString());
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.body()).contains("\"count\":2");
  }
}
