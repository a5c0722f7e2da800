package dev.weir.sample.shop;

import dev.weir.annotation.RateLimited;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Service;

/** Places orders. Each order waits for the payment provider, so their number in flight is limited. */
@Service
public class OrderService {

  private final Catalog catalog;
  private final PaymentGateway payments;
  private final Map<String, Order> orders = new ConcurrentHashMap<>();
  private final AtomicLong sequence = new AtomicLong();

  OrderService(Catalog catalog, PaymentGateway payments) {
    this.catalog = catalog;
    this.payments = payments;
  }

  /**
   * A concurrency limit (grade threads): at most so many orders are being placed at once; one more
   * is refused at once (429) rather than queueing behind slow payments.
   *
   * @throws UnknownProductException when the product does not exist (not a failure of the shop)
   */
  @RateLimited(value = "placeOrder", exceptionsToIgnore = UnknownProductException.class)
  public Order placeOrder(String productId, int quantity) {
    Product product = catalog.byId(productId).orElseThrow(() -> new UnknownProductException(productId));
    String id = "o-" + sequence.incrementAndGet();
    long total = product.priceCents() * quantity;
    Order order = new Order(id, productId, quantity, total, payments.charge(id, total));
    orders.put(id, order);
    return order;
  }

  /** Returns order {@code id}, if placed. */
  public Optional<Order> find(String id) {
    return Optional.ofNullable(orders.get(id));
  }
}
