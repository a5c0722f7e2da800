/**
 * The Weir sample shop: products, orders and a flaky shipping carrier, each guarded by
 * {@code @RateLimited} and the rules of {@code application.yml}.
 */
@NullMarked
package dev.weir.sample.shop;

import org.jspecify.annotations.NullMarked;
