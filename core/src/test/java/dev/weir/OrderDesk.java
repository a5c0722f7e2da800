package dev.weir;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The engine page's example (docs/engine.md): an engine built with rules, and a call guarded by
 * hand. The "orders" it places are whatever {@code orders} makes of a request.
 */
final class OrderDesk {

  private final Weir weir;
  private final UnaryOperator<String> orders;

  OrderDesk(Ticker ticker, UnaryOperator<String> orders) {
    this.orders = orders;
    // tag::build[]
    Weir weir = Weir.builder()
        .ticker(ticker)                                             // optional: System.nanoTime() by default
        .rules(RuleSet.of(
            FlowRule.qps("createOrder", 100),                       // 100 per second, reject above
            FlowRule.threads("createOrder", 20),                    // at most 20 inside at once
            FlowRule.builder("search").count(50)
                .controlBehavior(ControlBehavior.QUEUE)             // evenly spaced, wait up to 500 ms
                .maxQueueingTime(Duration.ofMillis(500)).build()))
        .build();
    // end::build[]
    this.weir = weir;
  }

  Weir weir() {
    return weir;
  }

  String place(String request) {
    // tag::entry[]
    try (Entry entry = weir.entry("createOrder")) {
      try {
        return orders.apply(request);
      } catch (RuntimeException e) {
        entry.recordError(e);                                       // counted as a failed call
        throw e;
      }
    } catch (BlockException blocked) {                              // FlowException, ...
      return tooManyRequests(blocked.retryAfter());
    }
    // end::entry[]
  }

  private static String tooManyRequests(Duration retryAfter) {
    return "429, retry after " + retryAfter.toMillis() + " ms";
  }
}
