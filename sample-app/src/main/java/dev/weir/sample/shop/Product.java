package dev.weir.sample.shop;

/**
 * A product of the catalog.
 *
 * @param id its identifier
 * @param name its name
 * @param priceCents its price in cents
 * @param stale whether this copy comes from the fallback cache rather than the catalog
 */
public record Product(String id, String name, long priceCents, boolean stale) {

  /** Returns this product marked as served from the cache. */
  Product asStale() {
    return new Product(id, name, priceCents, true);
  }
}
