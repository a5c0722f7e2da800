package dev.weir.sample.shop;

/** Takes payment for an order; slow, so only a few payments may run at once. */
public interface PaymentGateway {

  /** Charges {@code amountCents} for order {@code orderId}; returns the payment reference. */
  String charge(String orderId, long amountCents);
}
