package dev.weir.sample.shop;

import java.time.Duration;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** A payment provider that takes {@code shop.payment.latency} to answer. */
@Component
class SimulatedPaymentGateway implements PaymentGateway {

  private final Duration latency;

  SimulatedPaymentGateway(@Value("${shop.payment.latency:300ms}") Duration latency) {
    this.latency = latency;
  }

  @Override
  public String charge(String orderId, long amountCents) {
    try {
      Thread.sleep(latency.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while charging " + orderId, e);
    }
    return "pay-" + UUID.randomUUID();
  }
}
