package dev.weir.sample.shop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's {@code chromium}, headless, driven through Debian's {@code chromedriver}: the real browser
 * of the dashboard tests. Selenium is given both paths, so nothing is downloaded (there is no
 * internet). Each browser has a fresh profile directory and a laptop-sized window, 1280 by 900.
 *
 * <p>When either program is missing the test is skipped, except when the environment variable
 * {@code CI} is {@code true}: then it fails, so CI never passes without the browser tests
 * ({@code .ci/run} installs {@code chromium} and {@code chromium-driver}).
 */
final class HeadlessChromium {

  static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM_BINARY", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER = Path.of(System.getenv().getOrDefault("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver"));

  private HeadlessChromium() {
  }

  static WebDriver start() {
    requireOrAbort(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER), System.getenv("CI"));
    Path profile;
    try {
      profile = Files.createTempDirectory("weir-chromium-");
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
        .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--user-data-dir=" + profile, "--window-size=1280,900", "--lang=en-US");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(1280, 900));
    return driver;
  }

  /** Skips the test when the browser is missing, or fails it when {@code ciVariable} is {@code true}. */
  static void requireOrAbort(boolean installed, String ciVariable) {
    String missing = "the dashboard's browser tests need " + CHROMIUM + " and " + CHROMEDRIVER
        + " (Debian's chromium and chromium-driver; .ci/run installs them)";
    if (!installed && "true".equals(ciVariable)) {
      Assertions.fail(missing + ", required in CI");
    }
    Assumptions.assumeTrue(installed, missing);
  }

  /** Waits up to {@code seconds} for {@code condition} to give something other than null or false. */
  static <T> T await(WebDriver browser, int seconds, String what, Function<WebDriver, T> condition) {
    try {
      return new WebDriverWait(browser, Duration.ofSeconds(seconds), Duration.ofMillis(100))
          .ignoring(StaleElementReferenceException.class).withMessage(what).until(condition);
    } catch (TimeoutException ex) {
      screenshot(browser, "timeout-" + what.replaceAll("[^A-Za-z0-9]+", "-"));
      throw new AssertionError("Timed out after " + seconds + " s waiting for " + what + "; the page showed:\n"
          + browser.findElement(By.tagName("body")).getText(), ex);
    }
  }

  /**
   * Saves a screenshot to {@code target/screenshots/name.png}, and to the directory of the system
   * property {@code weir-test.screenshots} when it is set (the pictures of docs/dashboard.md are taken so:
   * {@code -Dweir-test.screenshots=$PWD/docs}).
   */
  static Path screenshot(WebDriver browser, String name) {
    byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    try {
      Path file = Path.of("target", "screenshots", name + ".png");
      Files.createDirectories(file.getParent());
      Files.write(file, png);
      Optional<String> copy = Optional.ofNullable(System.getProperty("weir-test.screenshots")).filter(s -> !s.isBlank());
      if (copy.isPresent()) {
        Path target = Path.of(copy.get(), name + ".png");
        Files.createDirectories(target.getParent());
        Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
      }
      return file;
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
