package dev.weir.sample.quotes;

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

/**
 * The dashboard on WebFlux (Reactor Netty, random port), at the level of HTTP: a browser gets the
 * page, a JSON client the JSON, and the page's way of changing rules, a {@code POST} of
 * {@code {"rules": "<JSON text>"}}, works here as on Spring MVC: a bad value is refused with its field
 * and nothing changes; a good one is applied. (The page itself runs in a browser in the shop sample's
 * {@code DashboardBrowserTests}; it is the same file.)
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "management.endpoint.weir.access=unrestricted")
class DashboardOnWebFluxTests {

  static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest.Builder at(String path) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
  }

  @Test
  void aBrowserGetsThePageWithTheEditorAndJsonClientsGetJson() throws Exception {
    HttpResponse<String> page = send(at("/actuator/weir")
        .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"));
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
    assertThat(page.body()).startsWith("<!doctype html>").contains("data-writes=\"open\"");
    HttpResponse<String> json = send(at("/actuator/weir").header("Accept", "application/json"));
    assertThat(json.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(json.body()).startsWith("{\"resources\":").contains("\"quote\"");
  }

  @Test
  void theRulesThePagePostsAreJudgedAndAppliedAsOnSpringMvc() throws Exception {
    HttpResponse<String> refused = send(at("/actuator/weir/quote").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"rules\": \"{\\\"flow\\\": [{\\\"count\\\": -1}]}\"}")));
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(refused.body()).contains("\"field\":\"flow[0].count\"");
    assertThat(weir.rules().rules("quote").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(2.0));

    HttpResponse<String> applied = send(at("/actuator/weir/quote").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"rules\": \"{\\\"flow\\\": [{\\\"count\\\": 7}]}\"}")));
    assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
    assertThat(weir.rules().rules("quote").flow()).singleElement()
        .satisfies(rule -> assertThat(rule.count()).isEqualTo(7.0));
  }
}
