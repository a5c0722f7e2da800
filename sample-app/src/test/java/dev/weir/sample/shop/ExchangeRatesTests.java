package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop's prices in other currencies, over real HTTP: the shop calls the exchange-rate partner
 * (served by the same application on a port chosen here, so that the client route can name it)
 * through a guarded {@code RestClient}. The partner allows 3 requests per 10 s and answers the fourth
 * with 429 and Retry-After; honour-upstream then keeps the shop from calling it again until the
 * window is over, and the shop shows dollar prices meanwhile.
 */
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
@AutoConfigureWeirTest
class ExchangeRatesTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final int PORT = freePort();

  @DynamicPropertySource
  static void port(DynamicPropertyRegistry registry) {
    registry.add("server.port", () -> PORT);
    registry.add("shop.rates-partner.url", () -> "http://127.0.0.1:" + PORT);
    registry.add("shop.rates-partner.latency", () -> "10ms");
  }

  @Autowired
  DrivenTicker ticker;

  @Autowired
  Weir weir;

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  String price(String product) throws Exception {
    HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + PORT + "/products/" + product + "/price?currency=EUR")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  @Test
  void aPartnerThatSaysNoOnceIsLeftAloneForAsLongAsItAsked() throws Exception {
    for (int i = 0; i < RatesPartnerController.REQUESTS_PER_WINDOW; i++) {
      assertThat(price("p-2")).contains("\"currency\":\"EUR\"").contains("\"converted\":true");
    }
    assertThat(price("p-2")).as("the partner's 429").contains("\"converted\":false")
        .contains("\"retryAfterSeconds\":10");
    ticker.advance(Duration.ofSeconds(4));
    long partnerCalls = weir.statistics("exchangeRates").totalPassed();
    assertThat(price("p-2")).as("refused in the shop").contains("\"currency\":\"USD\"")
        .contains("\"retryAfterSeconds\":6");
    assertThat(weir.statistics("exchangeRates").totalPassed()).as("nothing sent while paused").isEqualTo(partnerCalls);
    assertThat(weir.statistics("exchangeRates").totalBlocked()).isEqualTo(1);

    ticker.advance(Duration.ofSeconds(6));
    assertThat(price("p-2")).as("the partner's next window").contains("\"converted\":true");
  }
}
