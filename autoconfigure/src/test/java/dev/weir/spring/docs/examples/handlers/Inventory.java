package dev.weir.spring.docs.examples.handlers;

import dev.weir.BlockException;
import dev.weir.DegradeException;
import dev.weir.annotation.RateLimited;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The handler page's example: a stock lookup against a warehouse that may fail, with a handler for
 * each outcome. Not a {@code @Service} here: the test declares it as a bean.
 */
public class Inventory {

  /** The warehouse the lookups go to. */
  public interface Warehouse {
    int stock(String sku);
  }

  private final Warehouse warehouse;
  private final Map<String, Integer> lastKnown = new ConcurrentHashMap<>();

  public Inventory(Warehouse warehouse) {
    this.warehouse = warehouse;
  }

  // tag::handlers[]
  @RateLimited(value = "stockLevel",
      blockHandler = "whileOpen",                         // circuit open: DegradeException only
      fallback = "lastKnownLevel",                        // failures, and other refusals
      exceptionsToIgnore = IllegalArgumentException.class) // a bad SKU is the caller's problem
  public int stockLevel(String sku) {
    if (sku.isBlank()) {
      throw new IllegalArgumentException("no SKU");
    }
    int level = warehouse.stock(sku);
    lastKnown.put(sku, level);
    return level;
  }

  private int whileOpen(String sku, DegradeException open) {
    return StockAnswers.UNKNOWN;
  }

  private int lastKnownLevel(String sku, Throwable failureOrRefusal) {
    return lastKnown.getOrDefault(sku, StockAnswers.UNKNOWN);
  }
  // end::handlers[]

  // tag::handler-class[]
  @RateLimited(value = "reserve", blockHandler = "busy", blockHandlerClass = StockAnswers.class)
  public String reserve(String sku, int quantity) {
    return "reserved " + quantity + " of " + sku;
  }
  // end::handler-class[]

  /** Answers shared by several beans: handlers in another class are static. */
  // tag::answers[]
  public static final class StockAnswers {

    public static final int UNKNOWN = -1;

    private StockAnswers() {
    }

    public static String busy(String sku, int quantity, BlockException refused) {
      return "busy, retry in " + refused.retryAfter().toSeconds() + " s";
    }
  }
  // end::answers[]
}
