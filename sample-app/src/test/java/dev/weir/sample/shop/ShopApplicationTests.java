package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.Weir;
import dev.weir.rule.RuleKind;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The sample shop, started with its own application.yml and exercised over HTTP. With
 * {@code @AutoConfigureWeirTest} time is a {@link DrivenTicker} the test drives, and every test
 * starts from a reset engine (clean statistics, fresh windows, closed circuits, cold warm-up); the
 * payment provider is one the test holds, so that orders stay in flight.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "shop.shipping.failure-rate=1.0")
@AutoConfigureWeirTest
class ShopApplicationTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TestConfiguration
  static class TestPayments {
    @Bean
    @Primary
    HeldPayments heldPayments() {
      return new HeldPayments();
    }
  }

  /** A payment provider whose charges wait until the test releases them. */
  static final class HeldPayments implements PaymentGateway {
    final Semaphore inFlight = new Semaphore(0);
    volatile CountDownLatch release = new CountDownLatch(0);

    /** Forgets the charges of earlier tests and lets new ones through at once. */
    void reset() {
      inFlight.drainPermits();
      release = new CountDownLatch(0);
    }

    @Override
    public String charge(String orderId, long amountCents) {
      inFlight.release();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "held-" + orderId;
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  DrivenTicker ticker;

  @Autowired
  HeldPayments payments;

  @Autowired
  Catalog catalog;

  @Autowired
  Weir weir;

  @Autowired
  ShippingCarrier carrier;

  @BeforeEach
  void releasePayments() {
    payments.reset();
  }

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
  }

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder request = request(path);
    if (headers.length > 0) {
      request.headers(headers);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest order(String productId) {
    return request("/orders").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":\"" + productId + "\",\"quantity\":1}")).build();
  }

  @Test
  void productAboveItsRateComesFromTheCacheThroughTheBlockHandler() throws Exception {
    // p-1 may be looked up 10 times a second by its own hot-parameter limit: the flow rule's 5 bites first
    for (int i = 0; i < 5; i++) {
      assertThat(get("/products/p-1").body()).contains("\"stale\":false");
    }
    HttpResponse<String> sixth = get("/products/p-1");
    assertThat(sixth.statusCode()).isEqualTo(200);
    assertThat(sixth.body()).contains("\"stale\":true");
    ticker.advance(Duration.ofSeconds(1));
    assertThat(get("/products/p-1").body()).contains("\"stale\":false");
  }

  @Test
  void eachProductIdHasItsOwnHotParameterLimit() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get("/products/p-3").body()).contains("\"stale\":false");
    }
    assertThat(get("/products/p-3").body()).as("a 4th lookup of p-3 in one second").contains("\"stale\":true");
    assertThat(get("/products/p-2").body()).contains("\"stale\":false");
    assertThat(weir.statistics("findProduct").totalBlocked(RuleKind.PARAM_FLOW)).as("the 4th p-3").isEqualTo(1);
  }

  @Test
  void adminResourcesAreForTheOpsCallerOnly() throws Exception {
    HttpResponse<String> ops = get("/admin/resources", "X-Caller", "ops");
    assertThat(ops.statusCode()).isEqualTo(200);
    assertThat(ops.body()).contains("findProduct");
    HttpResponse<String> other = get("/admin/resources", "X-Caller", "web");
    assertThat(other.statusCode()).isEqualTo(403);
    assertThat(other.body()).contains("\"resource\":\"adminResources\"");
    HttpResponse<String> anonymous = get("/admin/resources");
    assertThat(anonymous.statusCode()).as("no X-Caller: no origin").isEqualTo(403);
    assertThat(anonymous.body()).contains("\"resource\":\"adminResources\"");
  }

  @Test
  void openCircuitStopsAskingTheFailingCarrier() throws Exception {
    assertThat(weir.statistics("shippingQuote").circuitState()).as("reset before the test").isEqualTo(CircuitState.CLOSED);
    for (int i = 0; i < 10 && weir.statistics("shippingQuote").circuitState() != CircuitState.OPEN; i++) {
      assertThat(get("/orders/o-1/shipping").body()).contains("flat-rate");
    }
    assertThat(weir.statistics("shippingQuote").circuitState()).isEqualTo(CircuitState.OPEN);
    int asked = carrier.calls();
    for (int i = 0; i < 5; i++) {
      assertThat(get("/orders/o-1/shipping").body()).contains("flat-rate");
    }
    assertThat(carrier.calls()).as("no call reaches the carrier while open").isEqualTo(asked);
    ticker.advance(Duration.ofSeconds(5));
    assertThat(get("/orders/o-1/shipping").body()).contains("flat-rate");
    assertThat(carrier.calls()).as("one probe after open-duration").isEqualTo(asked + 1);
    assertThat(weir.statistics("shippingQuote").circuitState()).as("the probe failed").isEqualTo(CircuitState.OPEN);
  }

  @Test
  void partnerCallerHasItsOwnSmallerLimit() throws Exception {
    assertThat(get("/products/p-2", "X-Caller", "partner-app").body()).contains("\"stale\":false");
    assertThat(get("/products/p-2", "X-Caller", "partner-app").body()).contains("\"stale\":true");
    assertThat(get("/products/p-2", "X-Caller", "another-app").body()).contains("\"stale\":false");
  }

  @Test
  void searchAboveItsRateIsA429Problem() throws Exception {
    assertThat(get("/products/search?q=t").statusCode()).isEqualTo(200);
    assertThat(get("/products/search?q=t").statusCode()).isEqualTo(200);
    HttpResponse<String> third = get("/products/search?q=t");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(third.body()).contains("\"status\":429").contains("\"resource\":\"searchProducts\"");
  }

  @Test
  void productListWarmsUp() throws Exception {
    // reset before the test: the limiter is cold, as after an idle period
    assertThat(get("/products").statusCode()).isEqualTo(200);
    assertThat(get("/products").statusCode()).as("cold: one call per 200 ms").isEqualTo(429);
    ticker.advance(Duration.ofMillis(200));
    assertThat(get("/products").statusCode()).isEqualTo(200);
    // steady traffic for three warm-up periods, offered at 40 calls per second: the rate reaches count
    int admittedInLastSecond = 0;
    for (int i = 0; i < 1200; i++) {
      ticker.advance(Duration.ofMillis(25));
      boolean admitted = admitted(() -> catalog.listProducts());
      if (i >= 1160 && admitted) {
        admittedInLastSecond++;
      }
    }
    assertThat(admittedInLastSecond).as("warm: count (20) per second").isBetween(19, 21);
  }

  private static boolean admitted(Runnable call) {
    try {
      call.run();
      return true;
    } catch (dev.weir.BlockException e) {
      return false;
    }
  }

  @Test
  void ordersInFlightAreLimitedToTwo() throws Exception {
    payments.release = new CountDownLatch(1);
    List<CompletableFuture<HttpResponse<String>>> first = List.of(
        CLIENT.sendAsync(order("p-1"), HttpResponse.BodyHandlers.ofString()),
        CLIENT.sendAsync(order("p-2"), HttpResponse.BodyHandlers.ofString()));
    assertThat(payments.inFlight.tryAcquire(2, 10, TimeUnit.SECONDS)).as("two orders wait for payment").isTrue();
    HttpResponse<String> third = CLIENT.send(order("p-3"), HttpResponse.BodyHandlers.ofString());
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.body()).contains("\"resource\":\"placeOrder\"");
    payments.release.countDown();
    for (CompletableFuture<HttpResponse<String>> response : first) {
      assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }
    assertThat(weir.statistics("placeOrder").activeCalls()).isZero();
  }

  @Test
  void ordersDoNotSpendThePublicProductLimit() throws Exception {
    for (int i = 0; i < 6; i++) {
      get("/products/p-1");
    }
    assertThat(get("/products/p-1").body()).contains("\"stale\":true");
    assertThat(CLIENT.send(order("p-2"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
  }

  @Test
  void unknownProductIsA404AndNotAFailure() throws Exception {
    assertThat(CLIENT.send(order("nope"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
    assertThat(weir.statistics("placeOrder").totalPassed()).as("the call was made").isEqualTo(1);
    assertThat(weir.statistics("placeOrder").totalFailed()).isZero();
  }

  @Test
  void failingCarrierFallsBackToAFlatRate() throws Exception {
    int asked = carrier.calls();
    HttpResponse<String> quote = get("/orders/o-1/shipping");
    assertThat(quote.statusCode()).isEqualTo(200);
    assertThat(quote.body()).contains("\"carrier\":\"flat-rate\"").contains("\"estimated\":true")
        .contains("\"priceCents\":" + ShippingService.FLAT_RATE_CENTS);
    assertThat(carrier.calls()).as("the carrier was asked and failed").isEqualTo(asked + 1);
    assertThat(weir.statistics("shippingQuote").totalFailed()).isEqualTo(1);
  }
}
