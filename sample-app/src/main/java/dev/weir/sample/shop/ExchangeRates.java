package dev.weir.sample.shop;

import dev.weir.BlockException;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * The shop's client of the exchange-rate partner. Nothing here mentions Weir either: the
 * {@code RestClient} is built from Spring Boot's {@code RestClient.Builder}, so the route of
 * {@code weir.client.routes} guards its requests as resource {@code exchangeRates}, and with
 * {@code honour-upstream} a {@code 429} with {@code Retry-After} pauses that resource: the next
 * requests are refused here, before anything is sent, until the partner's window is over. The shop
 * then shows prices in dollars, saying when the conversion will be back.
 */
@Service
class ExchangeRates {

  /** A converted price, or the price in dollars with why not and for how long. */
  record Conversion(String currency, long cents, boolean converted, long retryAfterSeconds) {
  }

  private final RestClient partner;

  ExchangeRates(RestClient.Builder builder, @Value("${shop.rates-partner.url}") String partnerUrl) {
    this.partner = builder.baseUrl(partnerUrl).build();
  }

  Conversion convert(long dollarCents, String currency) {
    try {
      Map<?, ?> rate = partner.get().uri("/rates-partner/rates/{currency}", currency).retrieve().body(Map.class);
      long perDollarMillis = ((Number) rate.get("perDollarMillis")).longValue();
      return new Conversion(currency, dollarCents * perDollarMillis / 1000, true, 0);
    } catch (BlockException paused) { // refused locally: the partner asked us to wait, or our own limit
      return new Conversion("USD", dollarCents, false, seconds(paused.retryAfter()));
    } catch (HttpClientErrorException.TooManyRequests refused) { // the partner said no: later calls wait here
      String retryAfter = refused.getResponseHeaders() == null ? null
          : refused.getResponseHeaders().getFirst("Retry-After");
      return new Conversion("USD", dollarCents, false, seconds(retryAfter));
    }
  }

  /** The delay-seconds of a Retry-After, or 0 when there is none or it is a date. */
  private static long seconds(String retryAfter) {
    return retryAfter != null && retryAfter.matches("\\d{1,9}") ? Long.parseLong(retryAfter) : 0;
  }

  private static long seconds(Duration duration) {
    return (duration.toMillis() + 999) / 1000;
  }
}
