package dev.weir.sample.shop;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/** The product catalog: reads that are cheap for us but that we keep within limits. */
@Service
public class Catalog {

  private static final Map<String, Product> PRODUCTS = Map.of(
      "p-1", new Product("p-1", "Teapot", 2_500, false),
      "p-2", new Product("p-2", "Kettle", 4_000, false),
      "p-3", new Product("p-3", "Mug", 900, false));

  /** Last answers, served when the catalog is busy. */
  private final Map<String, Product> cache = new ConcurrentHashMap<>();

  /**
   * A rate limit with a block handler: above the limit, callers get the last known copy of the
   * product (marked stale) instead of an error; with no copy to give, the refusal goes on to the
   * HTTP layer (429).
   */
  // tag::find-product[]
  @RateLimited(value = "findProduct", blockHandler = "cachedProduct")
  public Optional<Product> findProduct(String id) {
    Optional<Product> product = byId(id);
    product.ifPresent(found -> cache.put(id, found));
    return product;
  }

  /** Returns product {@code id} for the shop's own use (placing orders), outside the public limit. */
  public Optional<Product> byId(String id) {
    return Optional.ofNullable(PRODUCTS.get(id));
  }

  private Optional<Product> cachedProduct(String id, BlockException blocked) {
    Product cached = cache.get(id);
    if (cached == null) {
      throw blocked;
    }
    return Optional.of(cached.asStale());
  }
  // end::find-product[]

  /**
   * A warm-up limit without handlers: after an idle period the rate starts low and rises, and a
   * refusal reaches the HTTP layer, which answers 429.
   */
  @RateLimited("listProducts")
  public List<Product> listProducts() {
    return allProducts();
  }

  /** A plain rate limit without handlers: refusals become {@code 429 Too Many Requests}. */
  // tag::search[]
  @RateLimited("searchProducts")
  public List<Product> search(String query) {
    String needle = query.toLowerCase(Locale.ROOT);
    return allProducts().stream()
        .filter(product -> product.name().toLowerCase(Locale.ROOT).contains(needle)).toList();
  }
  // end::search[]

  private static List<Product> allProducts() {
    return PRODUCTS.values().stream().sorted(Comparator.comparing(Product::id)).toList();
  }
}
