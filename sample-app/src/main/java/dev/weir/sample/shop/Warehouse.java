package dev.weir.sample.shop;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** A flaky downstream: the warehouse's stock API fails {@code shop.warehouse.failure-rate} of the calls. */
@Component
public class Warehouse {

  private final double failureRate;
  private final AtomicInteger calls = new AtomicInteger();

  Warehouse(@Value("${shop.warehouse.failure-rate:0.3}") double failureRate) {
    this.failureRate = failureRate;
  }

  /** Returns how many of product {@code id} are in stock; fails as often as configured. */
  public int stock(String id) {
    calls.incrementAndGet();
    if (ThreadLocalRandom.current().nextDouble() < failureRate) {
      throw new WarehouseUnavailableException("the warehouse did not answer for " + id);
    }
    return Math.floorMod(id.hashCode(), 40);
  }

  /** Returns how many times the warehouse was asked, retries included. */
  public int calls() {
    return calls.get();
  }

  /** The warehouse did not answer. */
  public static class WarehouseUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WarehouseUnavailableException(String message) {
      super(message);
    }
  }
}
