package dev.weir.sample.shop;

import static dev.weir.sample.shop.DashboardBrowserTests.click;
import static dev.weir.sample.shop.DashboardBrowserTests.updates;
import static dev.weir.sample.shop.HeadlessChromium.await;
import static dev.weir.sample.shop.HeadlessChromium.screenshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.sample.shop.DashboardBrowserTests.Traffic;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.fleet.RulesStore;
import dev.weir.spring.test.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The dashboard's fleet tab in a real browser: two instances of the shop in its {@code redis}
 * profile with the rules store on ({@code weir.rules-store.enabled}), against a real
 * {@code redis-server} the test owns. Instance A opens the endpoint's writes, instance B does not
 * ({@code management.endpoint.weir.access: read-only}). The tab lists the instances and the version
 * each applies, marks one on an old version, shows the traffic summed over both, and the history;
 * rolling back from A's page publishes a new version every instance applies, while B's page offers
 * no rollback and B's endpoint refuses one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DashboardFleetBrowserTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private RedisServer redis;
  private final List<ConfigurableApplicationContext> shops = new ArrayList<>();
  private WebDriver browser;
  private ScheduledExecutorService heartbeats;

  @BeforeEach
  void startFleet() {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (heartbeats != null) {
      heartbeats.shutdownNow();
      heartbeats.awaitTermination(10, TimeUnit.SECONDS);
    }
    if (browser != null) {
      browser.quit();
    }
    shops.forEach(ConfigurableApplicationContext::close);
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void theFleetTabShowsInstancesVersionsSummedTrafficAndHistoryAndRollsBack() throws Exception {
    ConfigurableApplicationContext a = shop("unrestricted");
    ConfigurableApplicationContext b = shop("read-only");
    long first = write(a, 3);
    long second = write(a, 4);
    awaitApplied(second, a, b);
    // An instance that applies an old version: its heartbeat, sent as a live instance's would be.
    RulesStore store = a.getBean(RulesStore.class);
    heartbeats = Executors.newSingleThreadScheduledExecutor();
    heartbeats.scheduleAtFixedRate(() -> store.heartbeat("old-pod-1", "old-host", first, ""), 0, 1, TimeUnit.SECONDS);

    browser = HeadlessChromium.start();
    browser.get("http://localhost:" + port(a) + "/actuator/weir");
    await(browser, 15, "the page's first reading", x -> updates(x) >= 1);
    await(browser, 10, "the fleet tab", x -> x.findElement(By.id("tab-fleet")).isDisplayed());
    click(browser, "#tab-fleet");
    assertThat(browser.findElement(By.id("view-instance")).isDisplayed()).isFalse();

    try (Traffic onA = new Traffic(port(a), "/products/search?q=mug", 10);
         Traffic onB = new Traffic(port(b), "/products/search?q=mug", 10)) {
      await(browser, 20, "three instances, the old one marked behind", x -> {
        List<WebElement> rows = x.findElements(By.cssSelector("#fleet-instance-rows tr"));
        List<WebElement> behind = x.findElements(By.cssSelector("#fleet-instance-rows tr.behind"));
        return rows.size() == 3 && behind.size() == 1
            && "old-pod-1".equals(behind.get(0).getDomAttribute("data-instance"));
      });
      assertThat(browser.findElement(By.cssSelector("#fleet-instance-rows tr.behind")).getText())
          .contains("version " + first, "behind", "the fleet is at version " + second);
      assertThat(browser.findElement(By.id("fleet-status")).getText())
          .contains("Version " + second, "3 instances live", "1 behind");
      // The searches of both instances, summed: the shared limit admits some, refuses the rest.
      await(browser, 20, "the summed traffic of searchProducts, admitted and refused", x ->
          number(x, "searchProducts", "pass") > 0 && number(x, "searchProducts", "block") > 0);
      await(browser, 10, "the history, newest first", x -> versions(x).size() >= 2
          && versions(x).get(0).equals(Long.toString(second)));
      assertThat(browser.findElement(By.cssSelector("#fleet-history-rows tr[data-version='" + second + "']"))
          .getText()).contains("current");
      screenshot(browser, "dashboard-fleet");
    }

    click(browser, "#fleet-history-rows button.rollback[data-version='" + first + "']");
    await(browser, 5, "the confirmation", x -> x.findElement(By.id("fleet-confirm")).isDisplayed());
    assertThat(browser.findElement(By.id("fleet-confirm-text")).getText())
        .contains("version " + first, "every instance");
    assertThat(store.version()).as("nothing published before the confirmation").isEqualTo(second);
    click(browser, "#fleet-confirm-yes");
    long third = second + 1;
    await(browser, 10, "the rollback's answer", x -> x.findElement(By.id("fleet-result")).getText()
        .contains("version " + third + " publishes the rules of version " + first));
    awaitApplied(third, a, b);
    assertThat(flowCount(b)).as("the rules of version " + first + " on the other instance").isEqualTo(3.0);
    await(browser, 10, "the new version at the top of the history", x -> !versions(x).isEmpty()
        && versions(x).get(0).equals(Long.toString(third)));
    assertThat(browser.findElement(By.cssSelector("#fleet-history-rows tr[data-version='" + third + "']")).getText())
        .contains("rollback to version " + first);

    // The rule editor with the store on: the write is a new version for the whole fleet.
    click(browser, "#tab-instance");
    click(browser, "#rows button[data-name='searchProducts']");
    await(browser, 5, "the rule editor", x -> x.findElement(By.id("rules-yaml")).isDisplayed());
    DashboardBrowserTests.type(browser.findElement(By.id("rules-yaml")),
        "flow:\n  - count: 5\n    cluster-mode: true\n");
    click(browser, "#rules-apply");
    long fourth = third + 1;
    await(browser, 10, "the editor's answer naming the fleet's version", x -> x.findElement(By.id("rules-result"))
        .getText().contains("as version " + fourth + " of the fleet"));
    awaitApplied(fourth, a, b);
    assertThat(flowCount(b)).isEqualTo(5.0);

    // B's page: the same fleet, and no way to roll back.
    browser.get("http://localhost:" + port(b) + "/actuator/weir#fleet");
    await(browser, 15, "B's fleet tab with its history", x -> x.findElement(By.id("view-fleet")).isDisplayed()
        && !versions(x).isEmpty());
    assertThat(browser.findElement(By.id("fleet-closed")).getText())
        .contains("closed", "management.endpoint.weir.access: unrestricted");
    assertThat(browser.findElements(By.cssSelector("button.rollback"))).as("no rollback button").isEmpty();
    screenshot(browser, "dashboard-fleet-writes-closed");
  }

  @Test
  void aRollbackOnlyComesThroughTheEndpointsOpenJsonWrite() throws Exception {
    ConfigurableApplicationContext a = shop("unrestricted");
    ConfigurableApplicationContext b = shop("read-only");
    long first = write(a, 3);
    long second = write(a, 4);
    RulesStore store = a.getBean(RulesStore.class);
    // Writes closed: the operation is not there.
    HttpResponse<String> closed = post(b, "/actuator/weir/fleet/rollback/" + first, "application/json");
    assertThat(closed.statusCode()).as(closed.body()).isIn(404, 405);
    // What a form on another site can send (no preflight): not JSON, so refused.
    for (String type : List.of("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x")) {
      HttpResponse<String> crossSite = post(a, "/actuator/weir/fleet/rollback/" + first, type);
      assertThat(crossSite.statusCode()).as(type + ": " + crossSite.body()).isEqualTo(415);
    }
    assertThat(store.version()).as("nothing published").isEqualTo(second);
    HttpResponse<String> open = post(a, "/actuator/weir/fleet/rollback/" + first, "application/json");
    assertThat(open.statusCode()).as(open.body()).isEqualTo(200);
    assertThat(store.version()).isEqualTo(second + 1);
  }

  private ConfigurableApplicationContext shop(String access) throws InterruptedException {
    ConfigurableApplicationContext shop = new SpringApplicationBuilder(ShopApplication.class).profiles("redis")
        .run("--server.port=0", "--shop.grpc.port=0", "--spring.data.redis.host=127.0.0.1",
            "--spring.data.redis.port=" + redis.port(), "--weir.cluster.timeout=2s",
            "--weir.rules-store.enabled=true", "--management.endpoint.weir.access=" + access);
    shops.add(shop);
    FleetSync sync = shop.getBean(FleetSync.class);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!sync.reachable() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(sync.reachable()).as("the rules store reachable within 10 s").isTrue();
    return shop;
  }

  private static int port(ConfigurableApplicationContext shop) {
    return ((WebServerApplicationContext) shop).getWebServer().getPort();
  }

  /** Publishes searchProducts' limit as a new fleet version through A's endpoint; returns it. */
  private static long write(ConfigurableApplicationContext shop, int count) throws Exception {
    String body = "{\"rules\": \"{\\\"flow\\\": [{\\\"count\\\": " + count + ", \\\"clusterMode\\\": true}]}\"}";
    HttpResponse<String> answer = CLIENT.send(HttpRequest.newBuilder(
            URI.create("http://localhost:" + port(shop) + "/actuator/weir/searchProducts"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return Long.parseLong(answer.body().replaceAll("(?s).*\"version\"\\s*:\\s*(\\d+).*", "$1"));
  }

  private static HttpResponse<String> post(ConfigurableApplicationContext shop, String path, String type)
      throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port(shop) + path))
        .header("Content-Type", type).POST(HttpRequest.BodyPublishers.ofString("")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void awaitApplied(long version, ConfigurableApplicationContext... shops) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (ConfigurableApplicationContext shop : shops) {
      FleetSync sync = shop.getBean(FleetSync.class);
      while (sync.appliedVersion() != version && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(sync.appliedVersion()).as("the version applied").isEqualTo(version);
    }
  }

  private static double flowCount(ConfigurableApplicationContext shop) {
    List<FlowRule> flow = shop.getBean(Weir.class).rules().rules("searchProducts").flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  private static double number(WebDriver browser, String resource, String metric) {
    List<WebElement> found = browser.findElements(By.cssSelector(
        "#fleet-rows tr[data-resource='" + resource + "'] td[data-metric='" + metric + "'] .num"));
    return found.isEmpty() ? -1 : Double.parseDouble(found.get(0).getText());
  }

  private static List<String> versions(WebDriver browser) {
    return browser.findElements(By.cssSelector("#fleet-history-rows tr")).stream()
        .map(row -> row.getDomAttribute("data-version")).toList();
  }
}
