package dev.weir.sample.shop;

import static dev.weir.sample.shop.DashboardBrowserTests.click;
import static dev.weir.sample.shop.DashboardBrowserTests.text;
import static dev.weir.sample.shop.DashboardBrowserTests.updates;
import static dev.weir.sample.shop.HeadlessChromium.await;
import static dev.weir.sample.shop.HeadlessChromium.screenshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The adaptive limit on the dashboard in a real browser (Debian's chromium, headless, 1280 by 900):
 * a resource with an {@code adaptive} rule shows its limit beside its calls in flight in the table
 * ("3 of 4"), and its details draw both over time on one large chart with a calls axis and a clock
 * axis; when the limit changes, the chart's limit line follows and the earlier value stays in its
 * history. The calls are held open by the test (asynchronous entries), so what is in flight is
 * known exactly; the rules pin their limit (min-limit = max-limit), so that it is known too.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@SpringBootTest(classes = ShopApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class AdaptiveDashboardBrowserTests {

  private static final String RESOURCE = "adaptive.held";

  @LocalServerPort
  int port;

  @Autowired
  Weir weir;

  WebDriver browser;
  final List<Entry> held = new ArrayList<>();

  @BeforeEach
  void openBrowser() {
    browser = HeadlessChromium.start();
  }

  @AfterEach
  void closeAll() {
    held.forEach(Entry::close);
    if (browser != null) {
      browser.quit();
    }
  }

  private Object script(String js) {
    return ((JavascriptExecutor) browser).executeScript(js);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theLimitIsShownBesideTheCallsInFlightOverTime() {
    weir.rules().update(RESOURCE, rules -> rules.withFlow(List.of(FlowRule.adaptive(RESOURCE, 4, 4, 4))));
    for (int i = 0; i < 3; i++) {
      held.add(weir.asyncEntry(RESOURCE, EntryType.IN, 1));
    }
    browser.get("http://localhost:" + port + "/actuator/weir");
    await(browser, 15, "the page's first reading", b -> updates(b) >= 1);
    await(browser, 10, "the row shows the calls in flight of the limit", b -> "3 of 4".equals(
        String.valueOf(text(b, "tr[data-resource='" + RESOURCE + "'] td[data-metric='active']")).strip()));

    click(browser, "#rows button[data-name='" + RESOURCE + "']");
    await(browser, 10, "the adaptive chart", b -> "4".equals(text(b, "#adaptive-limit-now")));
    assertThat(text(browser, "#adaptive-active-now")).isEqualTo("3");
    Map<String, Object> size = (Map<String, Object>) script(
        "var r = document.getElementById('adaptive-svg').getBoundingClientRect(); return {w: r.width, h: r.height};");
    assertThat(((Number) size.get("w")).doubleValue()).as("large enough to read").isGreaterThanOrEqualTo(600);
    assertThat(((Number) size.get("h")).doubleValue()).isGreaterThanOrEqualTo(200);
    List<Object> calls = (List<Object>) script(
        "return Array.from(document.querySelectorAll('#adaptive-svg text.ytick'), t => t.textContent);");
    assertThat(calls).as("the calls axis: 0 to a round number above the limit").containsExactly("0", "1", "2", "3",
        "4", "5");
    await(browser, 40, "a time axis with a tick every 30 readings", b -> ((List<Object>) ((JavascriptExecutor) b)
        .executeScript("return Array.from(document.querySelectorAll('#adaptive-svg text.xtick'), t => t.textContent);"))
        .size() >= 2);
    List<Object> clock = (List<Object>) script(
        "return Array.from(document.querySelectorAll('#adaptive-svg text.xtick'), t => t.textContent);");
    assertThat(clock).allSatisfy(label -> assertThat((String) label).matches("\\d\\d:\\d\\d:\\d\\d"));
    assertThat(limitHeights()).as("the limit's line: flat at 4").containsOnly(y(4, 5));
    assertThat(activeHeights()).as("the calls in flight: flat at 3").containsOnly(y(3, 5));
    screenshot(browser, "dashboard-adaptive");

    // The limit falls to 2 and a call ends: both lines step down; what was before stays drawn.
    weir.rules().update(RESOURCE, rules -> rules.withFlow(List.of(FlowRule.adaptive(RESOURCE, 2, 2, 2))));
    held.remove(0).close();
    await(browser, 10, "the new limit", b -> "2".equals(text(b, "#adaptive-limit-now")));
    await(browser, 10, "the lines step down", b -> limitHeights().contains(y(2, 5)) && activeHeights().contains(y(2, 5)));
    assertThat(limitHeights()).as("the history keeps the old limit").contains(y(4, 5));
    assertThat(text(browser, "tr[data-resource='" + RESOURCE + "'] td[data-metric='active']")).contains("2 of 2");
    screenshot(browser, "dashboard-adaptive-lowered");

    // A resource without an adaptive rule has no such chart, and no limit beside its calls.
    click(browser, "#rows button[data-name='searchProducts']");
    await(browser, 10, "the other resource's details", b -> "searchProducts".equals(text(b, "#detail-title")));
    assertThat(script("return document.getElementById('adaptive').hidden")).isEqualTo(true);
    assertThat(text(browser, "tr[data-resource='searchProducts'] td[data-metric='active']")).doesNotContain("of");
  }

  @Test
  void callsWaitingUnderAThreadsRuleAreShownBesideTheCallsInside() throws Exception {
    String resource = "bulkhead.held";
    weir.rules().update(resource, rules -> rules.withFlow(List.of(FlowRule.builder(resource)
        .grade(dev.weir.rule.FlowGrade.THREADS).count(1).maxQueueingTime(java.time.Duration.ofMinutes(2)).build())));
    held.add(weir.asyncEntry(resource, EntryType.IN, 1));
    java.util.concurrent.CompletableFuture<Void> waiter = java.util.concurrent.CompletableFuture.runAsync(() -> {
      try (Entry entry = weir.entry(resource)) {
        // admitted once the held call ends
      }
    });
    browser.get("http://localhost:" + port + "/actuator/weir");
    await(browser, 15, "the row shows one call inside and one waiting", b -> String.valueOf(
        text(b, "tr[data-resource='" + resource + "'] td[data-metric='active']")).contains("+1 waiting"));
    assertThat(text(browser, "tr[data-resource='" + resource + "'] td[data-metric='active']")).startsWith("1");
    click(browser, "#rows button[data-name='" + resource + "']");
    await(browser, 10, "the details say so too", b -> String.valueOf(text(b, "#detail-summary")).contains("(+1 waiting)"));
    held.remove(0).close();
    waiter.get(30, TimeUnit.SECONDS);
    await(browser, 10, "nobody waits", b -> !String.valueOf(
        text(b, "tr[data-resource='" + resource + "'] td[data-metric='active']")).contains("waiting"));
  }

  /** The y of value {@code v} on an axis from 0 to {@code top}: the chart's plot is 202 px high from y 12. */
  private static String y(double v, double top) {
    return String.format(java.util.Locale.ROOT, "%.1f", 12 + 202 - v / top * 202);
  }

  private List<String> limitHeights() {
    return heights("limit");
  }

  private List<String> activeHeights() {
    return heights("active");
  }

  /** The distinct y of the points of the chart's polylines of {@code cls}. */
  @SuppressWarnings("unchecked")
  private List<String> heights(String cls) {
    return (List<String>) ((JavascriptExecutor) browser).executeScript(
        "var ys = new Set(); document.querySelectorAll('#adaptive-svg polyline.' + arguments[0]).forEach(function (p) {"
            + " p.getAttribute('points').trim().split(' ').forEach(function (xy) { ys.add(xy.split(',')[1]); }); });"
            + " return Array.from(ys);", cls);
  }
}
