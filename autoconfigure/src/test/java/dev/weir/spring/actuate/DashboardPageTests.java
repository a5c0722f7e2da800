package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Weir;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard page over real HTTP on Spring MVC: {@code GET /actuator/weir} answers the page to a
 * client that asks for {@code text/html}, as a browser does, and JSON to every other client, in the
 * content type each asked for; the page is one self-contained file that loads nothing from elsewhere;
 * it offers the rule editor only when the write operation is open. The page's behaviour in a browser
 * is tested in the sample application ({@code DashboardBrowserTests}).
 */
class DashboardPageTests {

  static final String BROWSER_ACCEPT =
      "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

  static final tools.jackson.core.type.TypeReference<Map<String, Object>> MAP = new tools.jackson.core.type.TypeReference<>() {
  };

  static final HttpClient CLIENT = HttpClient.newHttpClient();

  static HttpResponse<String> get(int port, String path, String accept) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    if (accept != null) {
      request.header("Accept", accept);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Nested
  @SpringBootTest(classes = RuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
      properties = "spring.config.name=rule-write-test")
  class WritesClosed {

    @LocalServerPort
    int port;

    @Autowired
    Weir weir;

    @Test
    void aBrowserGetsThePageAndEveryOtherClientGetsJson() throws Exception {
      HttpResponse<String> page = get(port, "/actuator/weir", BROWSER_ACCEPT);
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
      assertThat(page.body()).startsWith("<!doctype html>").contains("<title>Weir: live traffic</title>");

      assertThat(get(port, "/actuator/weir", "text/html").body()).isEqualTo(page.body());
      assertThat(get(port, "/actuator/weir", null).headers().firstValue("Content-Type"))
          .hasValue("application/vnd.spring-boot.actuator.v3+json");
      assertThat(get(port, "/actuator/weir", "*/*").headers().firstValue("Content-Type"))
          .hasValue("application/vnd.spring-boot.actuator.v3+json");
      HttpResponse<String> json = get(port, "/actuator/weir", "application/json");
      assertThat(json.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(json.body()).startsWith("{\"resources\":");
      // What a JSON client library sends: JSON, never the page.
      assertThat(get(port, "/actuator/weir", "application/json, text/plain, */*").body()).startsWith("{");
      // A single resource stays JSON, even for a browser.
      assertThat(get(port, "/actuator/weir/write.closed", BROWSER_ACCEPT).body()).startsWith("{");
    }

    @Test
    void thePageLoadsNothingFromElsewhereAndSaysThatWritesAreClosed() throws Exception {
      String html = get(port, "/actuator/weir", BROWSER_ACCEPT).body();
      assertThat(html).contains("data-writes=\"closed\"");
      // Every script, style and chart is in the page: no src or href attribute, no @import, no url().
      Matcher reference = Pattern.compile("(?i)\\s(src|href)\\s*=|@import|url\\(").matcher(html);
      String found = reference.find() ? reference.group() : null;
      assertThat(found).as("a reference to another file").isNull();
      assertThat(html).doesNotContain("http://", "https://");
      // 64 KiB until the fleet tab and the waiting calls (issues 40 and 42) took the page to 67 KB
      assertThat(html.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).as("the whole page, in bytes")
          .isLessThan(72 * 1024);
    }

    @Test
    void jsonCarriesTotalsAndRefusalsByKindForThePageCharts() throws Exception {
      dev.weir.ResourceStatistics before = weir.statistics("write.closed");
      long passedBefore = before == null ? 0 : before.totalPassed();
      long blockedBefore = before == null ? 0 : before.totalBlocked();
      for (int i = 0; i < 5; i++) {
        try (Entry entry = weir.entry("write.closed")) {
          assertThat(entry).isNotNull();
        } catch (BlockException ex) {
          // the third and later calls of the second are refused by the flow rule (count 2)
        }
      }
      Map<String, Object> body = JsonMapper.builder().build().readValue(get(port, "/actuator/weir", "application/json").body(),
          MAP);
      Map<?, ?> resource = (Map<?, ?>) ((Map<?, ?>) body.get("resources")).get("write.closed");
      Map<?, ?> blocked = (Map<?, ?>) resource.get("blocked");
      assertThat(blocked.keySet().stream().map(String::valueOf).toList()).containsExactly("flow", "degrade", "paramFlow", "authority", "system");
      assertThat(((Number) blocked.get("flow")).longValue()).isGreaterThanOrEqualTo(3);
      Map<?, ?> totals = (Map<?, ?>) resource.get("totals");
      assertThat(totals.keySet().stream().map(String::valueOf).toList())
          .containsExactly("passed", "succeeded", "failed", "responseTimeMillis");
      assertThat(((Number) totals.get("passed")).longValue() - passedBefore)
          .as("the five calls: admitted or refused by the flow rule")
          .isEqualTo(5 - (((Number) blocked.get("flow")).longValue() - blockedBefore));
      assertThat(((Number) totals.get("succeeded")).longValue() + ((Number) totals.get("failed")).longValue())
          .as("every admitted call completed").isEqualTo(((Number) totals.get("passed")).longValue());
      assertThat(body).doesNotContainKey("cluster");
      assertThat(List.copyOf(body.keySet())).containsExactly("resources", "system");
    }
  }

  @Nested
  @SpringBootTest(classes = RuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
      properties = {"spring.config.name=rule-write-test", "management.endpoint.weir.access=unrestricted"})
  class WritesOpen {

    @LocalServerPort
    int port;

    @Autowired
    Weir weir;

    @Test
    void thePageOffersTheRuleEditor() throws Exception {
      assertThat(get(port, "/actuator/weir", BROWSER_ACCEPT).body()).contains("data-writes=\"open\"")
          .doesNotContain("data-writes=\"closed\"");
    }

    @Test
    void theRulesThePagePostsAsTheOperationsArgumentAreAppliedOnSpringMvc() throws Exception {
      HttpRequest post = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/weir/page.posted"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"rules\": \"{\\\"flow\\\": [{\\\"count\\\": 9}]}\"}"))
          .build();
      HttpResponse<String> applied = CLIENT.send(post, HttpResponse.BodyHandlers.ofString());
      assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
      assertThat(weir.rules().rules("page.posted").flow()).singleElement()
          .satisfies(rule -> assertThat(rule.count()).isEqualTo(9.0));
    }
  }

  @Nested
  @SpringBootTest(classes = RuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
      properties = {"spring.config.name=rule-write-test", "management.endpoints.web.exposure.include=health"})
  class NotExposed {

    @LocalServerPort
    int port;

    @Test
    void withoutTheEndpointThereIsNoPage() throws Exception {
      assertThat(get(port, "/actuator/weir", BROWSER_ACCEPT).statusCode()).isEqualTo(404);
    }
  }

  @Nested
  @SpringBootTest(classes = RuleWriteTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
      properties = {"spring.config.name=rule-write-test", "management.endpoint.weir.access=none"})
  class NoAccess {

    @LocalServerPort
    int port;

    @Test
    void whoCannotReadTheJsonCannotReadThePage() throws Exception {
      assertThat(get(port, "/actuator/weir", "application/json").statusCode()).isEqualTo(404);
      assertThat(get(port, "/actuator/weir", BROWSER_ACCEPT).statusCode()).isEqualTo(404);
    }
  }
}
