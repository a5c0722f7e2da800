package dev.weir.sample.shop;

/**
 * What shipping an order costs.
 *
 * @param orderId the order
 * @param priceCents the price of shipping
 * @param carrier who ships it
 * @param estimated whether this is the flat-rate estimate used while the carrier is unavailable
 */
public record ShippingQuote(String orderId, long priceCents, String carrier, boolean estimated) {
}
