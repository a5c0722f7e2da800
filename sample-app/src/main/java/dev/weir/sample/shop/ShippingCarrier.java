package dev.weir.sample.shop;

import java.util.concurrent.ThreadLocalRandom;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** A flaky downstream: the carrier's API fails {@code shop.shipping.failure-rate} of the calls. */
@Component
public class ShippingCarrier {

  private final double failureRate;

  ShippingCarrier(@Value("${shop.shipping.failure-rate:0.5}") double failureRate) {
    this.failureRate = failureRate;
  }

  /**
   * Asks the carrier for a quote.
   *
   * @throws CarrierUnavailableException when the carrier fails to answer
   */
  public ShippingQuote quote(String orderId) throws CarrierUnavailableException {
    if (ThreadLocalRandom.current().nextDouble() < failureRate) {
      throw new CarrierUnavailableException("carrier timed out quoting " + orderId);
    }
    return new ShippingQuote(orderId, 650, "FastParcel", false);
  }

  /** The carrier did not answer; a checked exception, as a client library might declare. */
  public static class CarrierUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    CarrierUnavailableException(String message) {
      super(message);
    }
  }
}
