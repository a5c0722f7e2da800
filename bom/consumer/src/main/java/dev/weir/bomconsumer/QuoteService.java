package dev.weir.bomconsumer;

import dev.weir.annotation.RateLimited;
import org.springframework.stereotype.Service;

/** A guarded method, as a user's application has one: it needs the starter, versioned by the BOM. */
@Service
public class QuoteService {

  /** Returns a quote; guarded as the resource {@code quote}. */
  @RateLimited("quote")
  public String quote(String symbol) {
    return symbol + ": 42";
  }
}
