package dev.weir.spring.aot;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;

/** A guarded bean whose handlers are a private blockHandler of its own and a static fallback elsewhere. */
public class HintedService {

  @RateLimited(value = "hinted.order", blockHandler = "refused", fallback = "orderFallback",
      fallbackClass = OrderFallbacks.class)
  public String order(String item) {
    return "ordered " + item;
  }

  private String refused(String item, BlockException block) {
    return "refused " + item;
  }

  /** Not guarded: gets no invocation hint. */
  public String unguarded() {
    return "plain";
  }
}
