/**
 * A small reactive quote service guarded by Weir: a {@code @RateLimited} method returning
 * {@code Mono}, and a call entered through the engine in the request's Reactor context.
 */
@NullMarked
package dev.weir.sample.quotes;

import org.jspecify.annotations.NullMarked;
