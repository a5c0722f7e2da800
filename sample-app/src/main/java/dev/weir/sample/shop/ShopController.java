package dev.weir.sample.shop;

import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's HTTP API. It does not handle refusals: a {@code BlockException} that leaves a
 * service becomes Weir's default answer ({@code 429} with {@code Retry-After} and a problem body).
 */
@RestController
class ShopController {

  private final Catalog catalog;
  private final OrderService orders;
  private final ShippingService shipping;
  private final StockService stock;
  private final ExchangeRates rates;

  ShopController(Catalog catalog, OrderService orders, ShippingService shipping, StockService stock,
      ExchangeRates rates) {
    this.catalog = catalog;
    this.orders = orders;
    this.shipping = shipping;
    this.stock = stock;
    this.rates = rates;
  }

  @GetMapping("/products")
  List<Product> products() {
    return catalog.listProducts();
  }

  @GetMapping("/products/search")
  List<Product> search(@RequestParam("q") String query) {
    return catalog.search(query);
  }

  @GetMapping("/products/{id}")
  ResponseEntity<Product> product(@PathVariable("id") String id) {
    return ResponseEntity.of(catalog.findProduct(id));
  }

  /** A product's price in {@code currency}, converted with the exchange-rate partner's rate when it can be. */
  @GetMapping("/products/{id}/price")
  ResponseEntity<ExchangeRates.Conversion> price(@PathVariable("id") String id,
      @RequestParam(name = "currency", defaultValue = "EUR") String currency) {
    return ResponseEntity.of(catalog.findProduct(id).map(product -> rates.convert(product.priceCents(), currency)));
  }

  record OrderRequest(String productId, int quantity) {
  }

  @PostMapping("/orders")
  ResponseEntity<Order> placeOrder(@RequestBody OrderRequest request) {
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(orders.placeOrder(request.productId(), Math.max(1, request.quantity())));
  }

  @GetMapping("/orders/{id}/shipping")
  ShippingQuote shippingQuote(@PathVariable("id") String id) throws ShippingCarrier.CarrierUnavailableException {
    return shipping.quote(id);
  }

  /** Stock from the flaky warehouse, retried within the retry budget; 503 when it stays down. */
  @GetMapping("/products/{id}/stock")
  Map<String, Object> stock(@PathVariable("id") String id) {
    return Map.of("id", id, "inStock", stock.stock(id));
  }

  @ExceptionHandler(Warehouse.WarehouseUnavailableException.class)
  ResponseEntity<Map<String, String>> warehouseDown(Warehouse.WarehouseUnavailableException down) {
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("error", down.getMessage()));
  }
}
