package dev.weir.sample.quotes;

import dev.weir.annotation.RateLimited;
import java.util.Locale;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/** Prices symbols; rate-limited by the rule on resource {@code quote}. */
@Service
public class QuoteService {

  /** Returns the quote of {@code symbol}; a refusal reaches the controller and becomes a 429. */
  @RateLimited("quote")
  public Mono<Quote> quote(String symbol) {
    String upper = symbol.toUpperCase(Locale.ROOT);
    return Mono.fromSupplier(() -> new Quote(upper, 1_000 + Math.floorMod(upper.hashCode(), 9_000)));
  }
}
