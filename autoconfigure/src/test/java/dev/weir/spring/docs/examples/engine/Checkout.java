package dev.weir.spring.docs.examples.engine;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The engine page's example of a resource handle (docs/engine.md): a component resolves the handle
 * once and guards each call with it, by the throwing and the null-answering forms.
 */
final class Checkout {

  private final UnaryOperator<String> orders;
  // tag::handle[]
  private final Resource createOrder;

  Checkout(Weir weir, UnaryOperator<String> orders) {
    this.createOrder = weir.resource("createOrder");            // resolved once, kept
    this.orders = orders;
  }

  String place(String request) {
    try (Entry entry = createOrder.entry()) {                    // no name lookup per call
      return orders.apply(request);
    } catch (BlockException blocked) {
      return "429, retry after " + blocked.retryAfter().toMillis() + " ms";
    }
  }

  @Nullable String placeUnlessBusy(String request) {
    Entry entry = createOrder.tryEntry(EntryType.IN, 1);       // null when refused: nothing thrown
    if (entry == null) {
      return null;
    }
    try (entry) {
      return orders.apply(request);
    }
  }
  // end::handle[]
}
