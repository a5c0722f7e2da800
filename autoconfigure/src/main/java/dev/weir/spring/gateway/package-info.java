/**
 * Weir in Spring Cloud Gateway: {@link dev.weir.spring.gateway.WeirRateLimiter}, the WebFlux
 * server's {@code RateLimiter} for its {@code RequestRateLimiter} filter, and
 * {@link dev.weir.spring.gateway.WeirFilterFunctions}, the MVC server's filter functions. A route
 * is the resource {@code gateway:<routeId>}; its key is the call's argument 0.
 */
@NullMarked
package dev.weir.spring.gateway;

import org.jspecify.annotations.NullMarked;
