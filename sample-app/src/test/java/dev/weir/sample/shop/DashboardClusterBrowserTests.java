package dev.weir.sample.shop;

import static dev.weir.sample.shop.HeadlessChromium.await;
import static dev.weir.sample.shop.HeadlessChromium.screenshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.sample.shop.DashboardBrowserTests.Traffic;
import dev.weir.spring.redis.RedisClusterClient;
import dev.weir.spring.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The dashboard's cluster panel in a real browser, with the shop in its {@code redis} profile against
 * a real {@code redis-server} the test owns: the panel names the store and shows the decisions Redis
 * makes; when Redis goes away, the connection's breaker opens and the page says so, in the panel and
 * among the circuits not closed, and shows the decisions the fallback takes over.
 *
 * <p>The shop runs with a decision deadline of 2 s instead of its profile's 20 ms: on a machine busy
 * with other work a live Redis' answer can miss 20 ms, and the fallback it then takes (and the
 * breaker opening after five such in a row) is the engine keeping its deadline, not what this page
 * test is about. With 2 s, a live Redis decides every call, so the page must show no fallback and a
 * closed breaker while Redis is up; once Redis is gone, every decision fails at once (connection
 * refused), as with the profile's deadline.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DashboardClusterBrowserTests {

  private RedisServer redis;
  private ConfigurableApplicationContext shop;
  private WebDriver browser;

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (shop != null) {
      shop.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  static String value(WebDriver browser, String key) {
    List<WebElement> found = browser.findElements(By.cssSelector("#cluster-body dd[data-key='" + key + "']"));
    return found.isEmpty() ? "" : found.get(0).getText();
  }

  static double number(WebDriver browser, String key) {
    List<WebElement> found = browser.findElements(By.cssSelector("#cluster-body dd[data-key='" + key + "'] .num"));
    return found.isEmpty() ? -1 : Double.parseDouble(found.get(0).getText());
  }

  @Test
  void thePageShowsTheStoreItsDecisionsAndTheFallbackWhenRedisGoesAway() throws Exception {
    redis = RedisServer.start();
    shop = new SpringApplicationBuilder(ShopApplication.class).profiles("redis")
        .run("--server.port=0", "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port(),
            "--weir.cluster.timeout=2s");
    RedisClusterClient client = shop.getBean(RedisClusterClient.class);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!client.connected() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(client.connected()).as("connected to Redis within 10 s").isTrue();
    int port = ((WebServerApplicationContext) shop).getWebServer().getPort();

    browser = HeadlessChromium.start();
    browser.get("http://localhost:" + port + "/actuator/weir");
    try (Traffic search = new Traffic(port, "/products/search?q=mug", 10)) {
      await(browser, 15, "the cluster panel with Redis' decisions", b ->
          b.findElement(By.id("cluster")).isDisplayed() && number(b, "admitted") > 0 && number(b, "blocked") > 0);
      assertThat(value(browser, "store")).isEqualTo("redis 127.0.0.1:" + redis.port());
      assertThat(value(browser, "breaker")).isEqualTo("closed");
      assertThat(value(browser, "fallback")).isEqualTo("local");
      assertThat(number(browser, "fallbacks")).isZero();

      redis.close();
      redis = null;
      await(browser, 20, "the connection's breaker open, said in words", b -> value(b, "breaker").contains("OPEN"));
      assertThat(browser.findElement(By.id("alerts")).getText()).contains("cluster store");
      await(browser, 10, "decisions taken by the fallback", b -> number(b, "fallbacks") > 0);
      assertThat(value(browser, "last-failure")).isNotEmpty()
          .as("with its time").matches("(?s).* at \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}.*Z.*");
      ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
          "document.getElementById('cluster').scrollIntoView()");
      screenshot(browser, "dashboard-cluster");
    }
  }
}
