package dev.weir.sample.shop;

import dev.weir.annotation.RateLimited;
import org.springframework.stereotype.Service;

/** Quotes shipping through the flaky carrier, with a flat-rate fallback. */
@Service
public class ShippingService {

  /** The flat rate quoted while the carrier is unavailable. */
  static final long FLAT_RATE_CENTS = 990;

  private final ShippingCarrier carrier;

  ShippingService(ShippingCarrier carrier) {
    this.carrier = carrier;
  }

  /**
   * A fallback on a failing call: when the carrier fails (or a rule refuses the call), callers get
   * a flat-rate estimate; the failure is still counted for the resource's statistics.
   */
  // tag::quote[]
  @RateLimited(value = "shippingQuote", fallback = "flatRate")
  public ShippingQuote quote(String orderId) throws ShippingCarrier.CarrierUnavailableException {
    return carrier.quote(orderId);
  }

  private ShippingQuote flatRate(String orderId, Throwable cause) {
    return new ShippingQuote(orderId, FLAT_RATE_CENTS, "flat-rate", true);
  }
  // end::quote[]
}
