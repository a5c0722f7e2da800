package dev.weir.sample.shop;

/**
 * A placed order.
 *
 * @param id its identifier
 * @param productId the product ordered
 * @param quantity how many
 * @param totalCents what was charged
 * @param payment the payment reference
 */
public record Order(String id, String productId, int quantity, long totalCents, String payment) {
}
