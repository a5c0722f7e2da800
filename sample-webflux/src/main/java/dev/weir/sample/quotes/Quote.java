package dev.weir.sample.quotes;

/**
 * The price of a symbol.
 *
 * @param symbol the ticker symbol, upper case
 * @param priceCents the price in cents
 */
public record Quote(String symbol, long priceCents) {
}
