package dev.weir.sample.quotes;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** {@code GET /quotes/{symbol}}: two a second, then 429 with {@code Retry-After} and a problem body. */
@RestController
class QuotesController {

  private final QuoteService quotes;

  QuotesController(QuoteService quotes) {
    this.quotes = quotes;
  }

  @GetMapping("/quotes/{symbol}")
  Mono<Quote> quote(@PathVariable String symbol) {
    return quotes.quote(symbol);
  }
}
