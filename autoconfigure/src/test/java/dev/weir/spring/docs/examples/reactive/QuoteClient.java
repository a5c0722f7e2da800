package dev.weir.spring.docs.examples.reactive;

import dev.weir.annotation.RateLimited;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** The asynchronous page's example: quotes fetched with a {@code WebClient}, guarded until each answer arrives. */
public class QuoteClient {

  /** A price; {@link #UNKNOWN} when there is none to give. */
  public record Quote(String symbol, long priceCents) {
    static final Quote UNKNOWN = new Quote("?", -1);
  }

  private final WebClient webClient;
  private final Map<String, Quote> cache = new ConcurrentHashMap<>();

  public QuoteClient(WebClient.Builder builder, String baseUrl) {
    this.webClient = builder.baseUrl(baseUrl).build();
  }

  // tag::mono[]
  @RateLimited(value = "quotes", fallback = "cachedQuote")
  public Mono<Quote> quote(String symbol) {
    return webClient.get().uri("/quotes/{s}", symbol).retrieve().bodyToMono(Quote.class)
        .doOnNext(quote -> cache.put(symbol, quote));
  }

  private Quote cachedQuote(String symbol, Throwable failure) { // a plain value, or a Mono<Quote>
    return cache.getOrDefault(symbol, Quote.UNKNOWN);
  }
  // end::mono[]
}
