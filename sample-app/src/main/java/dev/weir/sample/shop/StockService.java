package dev.weir.sample.shop;

import org.springframework.resilience.annotation.Retryable;
import org.springframework.stereotype.Service;

/**
 * Stock levels from the flaky {@link Warehouse}, retried by Spring Framework's {@code @Retryable}.
 * Nothing here mentions Weir: its retry budget (weir.retry-budget in application.yml) bounds the
 * retries of this method, the resource {@code StockService.stock}, to 10 % of its calls plus one a
 * second, so that a warehouse that is down sees about 1.1 times the shop's traffic, not 4 times.
 */
@Service
public class StockService {

  private final Warehouse warehouse;

  StockService(Warehouse warehouse) {
    this.warehouse = warehouse;
  }

  /** Returns the stock of product {@code id}, retried up to 3 times, 100 ms apart, within the budget. */
  // tag::retryable[]
  @Retryable(maxRetries = 3, delayString = "${shop.warehouse.retry-delay:100ms}")  // resource "StockService.stock"
  public int stock(String id) {
    return warehouse.stock(id);
  }
  // end::retryable[]
}
