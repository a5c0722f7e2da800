package dev.weir.sample.shop;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** A flaky downstream: the carrier's API fails {@code shop.shipping.failure-rate} of the calls. */
@Component
public class ShippingCarrier {

  private final double failureRate;
  private final AtomicInteger calls = new AtomicInteger();

  ShippingCarrier(@Value("${shop.shipping.failure-rate:0.5}") double failureRate) {
    this.failureRate = failureRate;
  }

  /**
   * Asks the carrier for a quote.
   *
   * @throws CarrierUnavailableException when the carrier fails to answer
   */
  public ShippingQuote quote(String orderId) throws CarrierUnavailableException {
    calls.incrementAndGet();
    if (ThreadLocalRandom.current().nextDouble() < failureRate) {
      throw new CarrierUnavailableException("carrier timed out quoting " + orderId);
    }
    return new ShippingQuote(orderId, 650, "FastParcel", false);
  }

  /** Returns how many times the carrier was asked; an open circuit stops asking it. */
  public int calls() {
    return calls.get();
  }

  /** The carrier did not answer; a checked exception, as a client library might declare. */
  public static class CarrierUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    CarrierUnavailableException(String message) {
      super(message);
    }
  }
}
