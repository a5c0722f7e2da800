package dev.weir.sample.shop;

import dev.weir.Weir;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plays the exchange-rate partner the shop calls (another company's service, served from this
 * application so that the demo is one process): it is slow, and it allows 3 requests per 10-second
 * window, answering {@code 429 Too Many Requests} with {@code Retry-After} (the seconds left in the
 * window) beyond that, as real partners do. Nothing here mentions Weir but the clock: the window is
 * measured on the engine's ticker only so that the sample's tests can drive it.
 */
@RestController
class RatesPartnerController {

  static final int REQUESTS_PER_WINDOW = 3;
  static final Duration WINDOW = Duration.ofSeconds(10);
  private static final Map<String, Long> RATES_MILLIS = Map.of("EUR", 920L, "GBP", 790L, "JPY", 156_300L);

  private final Weir weir;
  private final Duration latency;
  private long windowStart = Long.MIN_VALUE;
  private int served;

  RatesPartnerController(Weir weir, @Value("${shop.rates-partner.latency:150ms}") Duration latency) {
    this.weir = weir;
    this.latency = latency;
  }

  /** The rate of one US dollar in {@code currency}, in thousandths. */
  @GetMapping("/rates-partner/rates/{currency}")
  ResponseEntity<Map<String, Object>> rate(@PathVariable("currency") String currency) throws InterruptedException {
    long retryAfterSeconds = admit();
    if (retryAfterSeconds > 0) {
      return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
          .header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds)).build();
    }
    Thread.sleep(latency.toMillis()); // a slow partner
    Long rate = RATES_MILLIS.get(currency);
    return rate == null ? ResponseEntity.notFound().build()
        : ResponseEntity.ok(Map.of("currency", currency, "perDollarMillis", rate));
  }

  /** Counts the request in the current window: 0 when admitted, else the whole seconds left (at least 1). */
  private synchronized long admit() {
    long now = weir.ticker().read();
    if (windowStart == Long.MIN_VALUE || now - windowStart >= WINDOW.toNanos()) {
      windowStart = now;
      served = 0;
    }
    if (served < REQUESTS_PER_WINDOW) {
      served++;
      return 0;
    }
    long left = WINDOW.toNanos() - (now - windowStart);
    return Math.max(1, (left + 999_999_999) / 1_000_000_000);
  }
}
