package dev.weir.sample.shop;

import static dev.weir.sample.shop.HeadlessChromium.await;
import static dev.weir.sample.shop.HeadlessChromium.screenshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The dashboard in a real browser (Debian's chromium, headless, 1280 by 900) against the sample shop
 * on a random port, as an operator uses it: the page lists the shop's resources and updates itself;
 * traffic above the search limit shows as passed and refused calls, with the refusing rule's kind; the
 * flaky carrier (failing every call here) opens its circuit, which the page highlights in words; an
 * edit of the search limit with a bad value shows the server's error beside the line and changes
 * nothing; a good value changes the limit, which the traffic then shows. The keyboard alone reaches
 * all of it. Screenshots go to {@code target/screenshots} (and to {@code -Dweir-test.screenshots}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DashboardBrowserTests {

  /**
   * The text of the first element {@code css} selects, or null: read in one script, since the page
   * redraws its rows every second and an element found first may be gone when its text is asked.
   */
  static String text(WebDriver browser, String css) {
    return (String) ((JavascriptExecutor) browser).executeScript(
        "var e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css);
  }

  static double number(WebDriver browser, String resource, String metric) {
    String value = text(browser, "tr[data-resource='" + resource + "'] td[data-metric='" + metric + "'] .num");
    return value == null ? -1 : Double.parseDouble(value);
  }

  static int updates(WebDriver browser) {
    String value = browser.findElement(By.tagName("body")).getDomAttribute("data-updates");
    return value == null ? 0 : Integer.parseInt(value);
  }

  /** Clicks the element {@code css} selects, again if the page redrew it between finding and clicking. */
  static void click(WebDriver browser, String css) {
    await(browser, 5, "a click on " + css, b -> {
      b.findElement(By.cssSelector(css)).click();
      return true;
    });
  }

  /** An attribute of the element that has the focus, read in one script. */
  static String focused(WebDriver browser, String attribute) {
    return (String) ((JavascriptExecutor) browser).executeScript(
        "return document.activeElement ? document.activeElement.getAttribute(arguments[0]) : null;", attribute);
  }

  /** Replaces the editor's text as a user does: select all, type. */
  static void type(WebElement area, String text) {
    area.sendKeys(Keys.chord(Keys.CONTROL, "a"));
    area.sendKeys(Keys.DELETE);
    area.sendKeys(text);
  }

  /** GET requests at a steady rate, with their statuses counted. */
  static final class Traffic implements AutoCloseable {
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final HttpClient client = HttpClient.newHttpClient();
    final ConcurrentHashMap<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();

    Traffic(int port, String path, int perSecond) {
      HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build();
      timer.scheduleAtFixedRate(() -> {
        try {
          int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
          statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
        } catch (Exception ex) {
          statuses.computeIfAbsent(-1, s -> new AtomicInteger()).incrementAndGet();
        }
      }, 0, 1000 / perSecond, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
      timer.shutdownNow();
      assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** A browser of its own for each test, on the page of the shop the test started. */
  abstract static class OnThePage {

    @LocalServerPort
    int port;

    WebDriver browser;

    @BeforeEach
    void openBrowser() {
      browser = HeadlessChromium.start();
    }

    @AfterEach
    void closeBrowser() {
      if (browser != null) {
        browser.quit();
      }
    }

    /** Opens the dashboard and waits for its first reading of the endpoint. */
    void openDashboard() {
      browser.get("http://localhost:" + port + "/actuator/weir");
      await(browser, 15, "the page's first reading", b -> updates(b) >= 1);
    }
  }

  @Nested
  @SpringBootTest(classes = ShopApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
      properties = "shop.shipping.failure-rate=1.0")
  class WritesOpen extends OnThePage {

    @Autowired
    Weir weir;

    @Test
    @SuppressWarnings("unchecked")
    void anOperatorSeesRefusalsAndAnOpenCircuitAndRaisesALimit() throws Exception {
      openDashboard();
      assertThat(browser.getTitle()).isEqualTo("Weir: live traffic");
      assertThat((List<Object>) ((JavascriptExecutor) browser).executeScript("return Array.from("
          + "document.querySelectorAll('#rows tr'), r => r.getAttribute('data-resource'))"))
          .as("every resource with rules is listed").contains("searchProducts", "shippingQuote", "findProduct",
              "placeOrder", "partnerApi");

      try (Traffic search = new Traffic(port, "/products/search?q=tea", 10)) {
        // Traffic above the limit: 10 a second against 2 a second.
        await(browser, 15, "searchProducts shows passed and refused calls", b ->
            number(b, "searchProducts", "pass") > 0 && number(b, "searchProducts", "block") > 0);
        await(browser, 10, "the refusals are attributed to the flow rule", b ->
            String.valueOf(text(b, "tr[data-resource='searchProducts'] td[data-metric='block'] .kinds")).contains("flow"));
        // 2 a second in any window of the limiter; the page's rate is over the ~1 s between two
        // readings, which can hold the passes of two of its windows.
        assertThat(number(browser, "searchProducts", "pass")).as("the limit is 2 a second").isLessThanOrEqualTo(4);

        // The carrier fails every call: four quotes open the circuit of shippingQuote.
        HttpClient client = HttpClient.newHttpClient();
        for (int i = 0; i < 6; i++) {
          client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders/o-1/shipping")).build(),
              HttpResponse.BodyHandlers.discarding());
        }
        await(browser, 10, "the open circuit is highlighted", b -> "open".equals(((JavascriptExecutor) b).executeScript(
            "var e = document.querySelector(\"tr[data-resource='shippingQuote']\"); return e && e.className;")));
        assertThat(text(browser, "tr[data-resource='shippingQuote'] td[data-metric='circuit']"))
            .as("said in words, not only in colour").contains("OPEN");
        assertThat(browser.findElement(By.id("alerts")).getText()).contains("shippingQuote", "OPEN");
        assertThat(((JavascriptExecutor) browser).executeScript(
            "return document.querySelector('#rows tr').getAttribute('data-resource')"))
            .as("open circuits first").isEqualTo("shippingQuote");
        await(browser, 15, "ten seconds of history for the pictures", b -> updates(b) >= 12);
        screenshot(browser, "dashboard-overview");

        // Open the search's rules and give its limit a bad value: the server's error is shown next to
        // the line, and nothing changes.
        click(browser, "#rows button[data-name='searchProducts']");
        WebElement editor = await(browser, 5, "the rule editor", b -> {
          WebElement area = b.findElement(By.id("rules-yaml"));
          return area.isDisplayed() && String.valueOf(area.getDomProperty("value")).contains("count: 2") ? area : null;
        });
        String yaml = editor.getDomProperty("value");
        assertThat(yaml).startsWith("flow:\n  - count: 2\n").contains("grade: qps");
        assertThat(browser.findElement(By.id("detail-summary")).getText()).as("the rate beside its limit")
            .containsPattern("passed [0-9.]+/s \\(limit 2 per 1s\\)");
        type(editor, yaml.replace("count: 2", "count: -5"));
        browser.findElement(By.id("rules-apply")).click();
        WebElement error = await(browser, 10, "the server's error", b ->
            b.findElements(By.cssSelector("#rules-errors li")).stream().findFirst().orElse(null));
        assertThat(error.getText()).contains("Line 2", "flow[0].count");
        WebElement mark = browser.findElement(By.cssSelector("#rules-lane .mark"));
        assertThat(mark.getDomAttribute("data-line")).as("beside the line of count").isEqualTo("2");
        assertThat(mark.getText()).contains("flow[0].count");
        assertThat(editor.getDomAttribute("aria-invalid")).isEqualTo("true");
        assertThat(browser.findElement(By.id("rules-result")).getText()).contains("Nothing changed");
        assertThat(weir.rules().rules("searchProducts").flow()).singleElement()
            .satisfies(rule -> assertThat(rule.count()).as("nothing changed").isEqualTo(2.0));
        screenshot(browser, "dashboard-rule-error");

        // A good value, and a name for the rule: applied, and the traffic shows the new limit.
        type(editor, yaml.replace("count: 2", "count: 50\n    name: search.per-second"));
        browser.findElement(By.id("rules-apply")).click();
        await(browser, 10, "the change applied", b ->
            b.findElement(By.id("rules-result")).getText().startsWith("Applied"));
        assertThat(browser.findElements(By.cssSelector("#rules-errors li"))).isEmpty();
        assertThat(weir.rules().rules("searchProducts").flow()).singleElement().satisfies(rule -> {
          assertThat(rule.count()).isEqualTo(50.0);
          assertThat(rule.name()).isEqualTo("search.per-second");
        });
        await(browser, 10, "the page shows the rule with its name", b ->
            String.valueOf(b.findElement(By.id("rules-yaml")).getDomProperty("value"))
                .startsWith("flow:\n  - name: search.per-second\n    count: 50\n"));
        await(browser, 15, "the traffic under the new limit: all 10 a second pass, none refused", b ->
            number(b, "searchProducts", "pass") >= 8 && number(b, "searchProducts", "block") == 0);
        screenshot(browser, "dashboard-rule-applied");
      }
    }

    @Test
    void rulesOfAMisspeltResourceShowTheEndpointsWarningBeforeAnythingIsSaved() throws Exception {
      // Rules for "serchProducts": no call uses it, the shop calls it searchProducts.
      HttpResponse<String> written = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://localhost:" + port + "/actuator/weir/serchProducts"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"flow\": [{\"count\": 1}]}")).build(),
          HttpResponse.BodyHandlers.ofString());
      String warning = "no call has used resource 'serchProducts' since start (did you mean 'searchProducts'?)";
      assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      assertThat(written.body()).contains(warning);

      openDashboard();
      await(browser, 10, "the resource is listed", b ->
          !b.findElements(By.cssSelector("#rows button[data-name='serchProducts']")).isEmpty());
      click(browser, "#rows button[data-name='serchProducts']");
      WebElement shown = await(browser, 10, "the warning beside the rule editor", b -> {
        WebElement note = b.findElement(By.id("rules-warning"));
        return note.isDisplayed() ? note : null;
      });
      assertThat(shown.getText()).contains(warning);
      assertThat(browser.findElement(By.id("rules-result")).getText()).as("nothing saved yet").isEmpty();

      click(browser, "#rows button[data-name='searchProducts']");
      await(browser, 10, "no warning for a resource in use", b -> !b.findElement(By.id("rules-warning")).isDisplayed());
    }

    @Test
    void theKeyboardReachesSearchRowsDetailsAndBack() {
      openDashboard();
      WebElement body = browser.findElement(By.tagName("body"));
      body.sendKeys("/");
      WebElement search = browser.switchTo().activeElement();
      assertThat(search.getDomAttribute("id")).as("/ focuses the search").isEqualTo("search");
      search.sendKeys("shipping");
      await(browser, 5, "only the matching resource", b ->
          b.findElements(By.cssSelector("#rows tr")).size() == 1);
      assertThat(browser.findElement(By.id("shown")).getText()).matches("1 of \\d+ resources match");
      // Tab past the order selector to the row's name, and open it with Enter. Keys go to whatever
      // has the focus (the page redraws its rows every second and gives the focus back to the same name).
      Actions keys = new Actions(browser);
      keys.sendKeys(Keys.TAB).sendKeys(Keys.TAB).perform();
      assertThat(focused(browser, "data-name")).isEqualTo("shippingQuote");
      keys.sendKeys(Keys.ENTER).perform();
      assertThat(focused(browser, "id")).isEqualTo("detail-title");
      assertThat(text(browser, "#detail-title")).isEqualTo("shippingQuote");
      assertThat(browser.findElement(By.id("rules-yaml")).getDomProperty("value")).contains("degrade:",
          "strategy: error-ratio");
      keys.sendKeys(Keys.ESCAPE).perform();
      await(browser, 5, "the details closed", b -> !b.findElement(By.id("detail")).isDisplayed());
      assertThat(focused(browser, "data-name")).as("focus returns to the row").isEqualTo("shippingQuote");
      Object width = ((JavascriptExecutor) browser).executeScript("return document.documentElement.scrollWidth");
      assertThat(((Number) width).intValue()).as("no horizontal scrolling at 1280 px").isLessThanOrEqualTo(1280);
    }
  }

  @Nested
  @SpringBootTest(classes = ShopApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
      properties = "management.endpoint.weir.access=read-only")
  class WritesClosed extends OnThePage {

    @Test
    void thePageShowsTheRulesAndSaysThatChangingThemIsClosed() {
      openDashboard();
      click(browser, "#rows button[data-name='searchProducts']");
      await(browser, 5, "the rules", b -> b.findElement(By.id("rules-view")).isDisplayed());
      assertThat(browser.findElement(By.id("rules-view")).getText()).contains("flow:", "count: 2");
      assertThat(browser.findElement(By.id("rules-closed")).getText()).contains("closed",
          "management.endpoint.weir.access: unrestricted");
      assertThat(browser.findElement(By.id("rules-form")).isDisplayed()).as("no form").isFalse();
      screenshot(browser, "dashboard-writes-closed");
    }
  }
}
